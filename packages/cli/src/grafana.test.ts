import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { grafanaDashboard } from "@finetune-studio/serve-kit";
import { describe, expect, it } from "vitest";
import { tempDir } from "./test/cli-process.js";
import { sharedFileMode } from "./test/file-mode.js";
import { runCapture } from "./test/run-cli.js";

// `studio-serve grafana` prints serve-kit's dashboard, the same bytes on every run, or writes it 0644.

interface Panel {
  type: string;
  title: string;
}

describe("studio-serve grafana", () => {
  it("prints the dashboard grafanaDashboard builds, the same bytes on every run", async () => {
    const first = await runCapture(["grafana"]);
    const second = await runCapture(["grafana"]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe(`${JSON.stringify(grafanaDashboard(), null, 2)}\n`);
    expect(second.stdout).toBe(first.stdout);
    expect(JSON.parse(first.stdout).uid).toBe("studio-serve-vllm");
  });

  it("--out writes the same JSON to FILE, readable by others (0644), and says how to import it", async () => {
    const file = join(tempDir("grafana-"), "dashboards", "vllm.json");
    const args = ["--title", "Support model", "--slo", "ttft=500ms,tpot=50ms", "--objective", "0.995"];
    const result = await runCapture(["grafana", ...args, "--out", file]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${file}\n`);
    expect(result.stderr).toContain("Import");
    const text = readFileSync(file, "utf8");
    const expected = grafanaDashboard({
      title: "Support model",
      slo: "ttft=500ms,tpot=50ms",
      objective: 0.995,
    });
    expect(text).toBe(`${JSON.stringify(expected, null, 2)}\n`);
    expect(statSync(file).mode & 0o777).toBe(sharedFileMode());
    const titles = (JSON.parse(text).panels as Panel[]).map((panel) => panel.title);
    expect(titles).toContain("SLO attainment, fleet");
    expect(JSON.parse(text).title).toBe("Support model");
  });

  it.each([
    [["--slo", "ttft=fast"], "--slo:"],
    [["--objective", "0.99"], "--objective: goes with --slo, the targets it is the share of"],
    [["--slo", "ttft=500ms", "--objective", "1.5"], "--objective: must be a share above"],
    [["--title", ""], "--title: must be 1 to 200 characters"],
    [["dashboard.json"], "dashboard.json"],
  ])("refuses %j, naming the flag, and prints nothing", async (args, message) => {
    const result = await runCapture(["grafana", ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stdout).toBe("");
  });
});
