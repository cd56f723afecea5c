import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { prometheusConfig, prometheusRules } from "@finetune-studio/serve-kit";
import { afterEach, describe, expect, it } from "vitest";
import { sharedFileMode } from "./test/file-mode.js";
import { runCapture } from "./test/run-cli.js";

// `studio-serve prometheus` writes what the serve-kit builders make, and Debian's promtool accepts it.

const PROMTOOL = process.env.PROMTOOL ?? "/usr/bin/promtool";
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function promtool(args: string[], cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    execFile(PROMTOOL, args, { cwd, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== "number")
        reject(new Error(`cannot run ${PROMTOOL}: ${error.message}`));
      else resolve({ code: typeof error?.code === "number" ? error.code : 0, output: `${stdout}${stderr}` });
    });
  });
}

describe("studio-serve prometheus", { timeout: 60_000 }, () => {
  it("--out writes prometheus.yml and the rules it loads, and promtool checks both", async () => {
    const dir = mkdtempSync(join(tmpdir(), "studio-prometheus-cli-"));
    dirs.push(dir);
    const out = join(dir, "monitoring");
    const args = [
      "--target",
      "127.0.0.1:8001",
      "--target",
      "127.0.0.1:8002",
      "--kv-cache",
      "0.85",
      "--for",
      "3",
    ];
    const result = await runCapture(["prometheus", ...args, "--out", out]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${join(out, "prometheus.yml")}\n${join(out, "studio-serve-rules.yml")}\n`);
    expect(result.stderr).toContain("promtool check config");

    const config = readFileSync(join(out, "prometheus.yml"), "utf8");
    const rules = readFileSync(join(out, "studio-serve-rules.yml"), "utf8");
    expect(config).toBe(prometheusConfig({ targets: ["127.0.0.1:8001", "127.0.0.1:8002"] }));
    expect(rules).toBe(prometheusRules({ thresholds: { kvCacheUsage: 0.85, forMinutes: 3 } }));
    // No secret in them, and Prometheus runs as its own user: both are readable by others (0644 less the umask).
    for (const name of ["prometheus.yml", "studio-serve-rules.yml"]) {
      expect(statSync(join(out, name)).mode & 0o777).toBe(sharedFileMode());
    }

    const checked = await promtool(["check", "config", "prometheus.yml"], out);
    expect(checked.code, checked.output).toBe(0);
    // Five alerts on the instances and FrontDoorDown.
    expect(checked.output).toContain("SUCCESS: 6 rules found");
    const rulesChecked = await promtool(["check", "rules", "studio-serve-rules.yml"], out);
    expect(rulesChecked.code, rulesChecked.output).toBe(0);
  });

  it("--out writes both files or neither: a rules file that cannot be written leaves prometheus.yml as it was", async () => {
    const dir = mkdtempSync(join(tmpdir(), "studio-prometheus-cli-"));
    dirs.push(dir);
    writeFileSync(join(dir, "prometheus.yml"), "# the operator's own\n");
    mkdirSync(join(dir, "studio-serve-rules.yml"));
    const result = await runCapture(["prometheus", "--target", "127.0.0.1:8001", "--out", dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `--out: ${join(dir, "studio-serve-rules.yml")}: is a directory, not a file it may replace; nothing was written`,
    );
    expect(result.stderr).not.toContain("unexpected error");
    expect(readFileSync(join(dir, "prometheus.yml"), "utf8")).toBe("# the operator's own\n");
    expect(readdirSync(dir).sort()).toEqual(["prometheus.yml", "studio-serve-rules.yml"]);
  });

  it("--slo and --objective add the SLO recording rules and burn-rate alerts, which promtool accepts", async () => {
    const dir = mkdtempSync(join(tmpdir(), "studio-prometheus-cli-"));
    dirs.push(dir);
    const slo = ["--slo", "ttft=500ms,tpot=50ms,e2el=10s", "--objective", "0.995"];
    const result = await runCapture(["prometheus", "--target", "127.0.0.1:8001", ...slo, "--out", dir]);
    expect(result.code, result.stderr).toBe(0);
    const rules = readFileSync(join(dir, "studio-serve-rules.yml"), "utf8");
    expect(rules).toBe(prometheusRules({ slo: "ttft=500ms,tpot=50ms,e2el=10s", objective: 0.995 }));
    expect(rules).toContain("VllmSloBudgetBurningFast");
    expect(rules).toContain("job_slo:vllm_requests_within_target:ratio_rate5m");
    const checked = await promtool(["check", "config", "prometheus.yml"], dir);
    expect(checked.code, checked.output).toBe(0);
  });

  it("prints both files without --out", async () => {
    const result = await runCapture(["prometheus", "--target", "[::1]:8001", "--scrape-interval", "5"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `# prometheus.yml\n${prometheusConfig({ targets: ["[::1]:8001"], scrapeIntervalSeconds: 5 })}---\n# studio-serve-rules.yml\n${prometheusRules()}`,
    );
  });

  it.each([
    [[], "name the instances: --target host:port (repeat for each), or --launch P"],
    [["--target", "a:1", "--slo", "ttft=soon"], "--slo:"],
    [["--target", "a:1", "--slo", "ttft=0.5ms"], "--slo: ttft must be at least"],
    [
      ["--target", "a:1", "--objective", "0.99"],
      "--objective: goes with --slo, the targets it is the share of",
    ],
    [
      ["--target", "a:1", "--slo", "ttft=500ms", "--objective", "0.5"],
      "--objective: must be a share above 0.9306",
    ],
    [
      ["--target", "a:1", "--target", "nope"],
      '--target #2: must be host:port with a port from 1 to 65535 ([addr]:port for IPv6) (given "nope")',
    ],
    [
      ["--target", "a:1", "--kv-cache", "1.5"],
      "--kv-cache: must be a number above 0 and at most 1 (given 1.5)",
    ],
    [
      ["--target", "a:1", "--waiting", "lots"],
      '--waiting: must be an integer from 1 to 1000000 (given "lots")',
    ],
    [
      ["--target", "a:1", "--ttft-p95", "0"],
      "--ttft-p95: must be a number above 0 and at most 3600 (given 0)",
    ],
    [
      ["--target", "a:1", "--scrape-interval", "0"],
      "--scrape-interval: must be an integer from 1 to 3600 (given 0)",
    ],
    [["--target", "a:1", "--job", "a b"], "--job: must match"],
  ])(
    "refuses %j with the flag, the rule and what was given (exit 2, nothing written)",
    async (args, message) => {
      const result = await runCapture(["prometheus", ...args]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toContain(`studio-serve: ${message}`);
    },
  );
});
