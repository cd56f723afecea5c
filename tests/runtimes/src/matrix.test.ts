// The runtime matrix: smoke.mjs, unchanged, on every runtime in runtimes.ts, one after another (a 2-core
// CI machine), from the project where the packed tarballs were installed with npm, against one shared set
// of mocks. Each runtime is a test that fails on any failed check; the last test prints runtime × check.
import { execFileSync } from "node:child_process";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { startProcess } from "@finetune-studio/testing";
import { afterAll, describe, expect, inject, it } from "vitest";
import { publishedPackages } from "../../packaging/src/published.js";
import { type Runtime, runtimes } from "./runtimes.js";
import { type CheckResult, parseSmokeOutput, type SmokeCheck, smokeChecks } from "./smoke/checks.js";
import { statusMark, textTable } from "./table.js";

const consumerDir = inject("consumerDir");
const RUN_TIMEOUT_MS = 180_000;

const smokeScript = join(consumerDir, "smoke.mjs");
copyFileSync(join(import.meta.dirname, "smoke", "smoke.mjs"), smokeScript);
const config = JSON.stringify({
  packages: publishedPackages().map((pkg) => pkg.name),
  studioUrl: inject("studioMockUrl"),
  chatUrl: inject("chatMockUrl"),
  faultUrl: inject("faultServerUrl"),
});

interface Row {
  readonly runtime: string;
  readonly version: string;
  readonly seconds: string;
  readonly results: Map<SmokeCheck, CheckResult>;
}
const rows: Row[] = [];

/** The version the binary itself reports (`v22.23.3`, `1.4.5`, `deno 2.9.6 (…)`). */
function versionOf(binary: string): string {
  try {
    const printed = execFileSync(binary, ["--version"], {
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1" },
    });
    return (printed.split("\n")[0] ?? "")
      .replace(/^deno /, "")
      .replace(/ \(.*$/, "")
      .trim();
  } catch {
    return "unknown (--version failed)";
  }
}

async function runSmoke(runtime: Runtime, binary: string): Promise<Row> {
  const started = Date.now();
  const proc = startProcess(binary, [...runtime.runArgs(smokeScript), config], {
    cwd: consumerDir,
    env: { ...process.env, ...runtime.env(consumerDir) },
  });
  const timer = setTimeout(() => void proc.stop(), RUN_TIMEOUT_MS);
  const exit = await proc.exited;
  clearTimeout(timer);
  return {
    runtime: runtime.name,
    version: versionOf(binary),
    seconds: ((Date.now() - started) / 1000).toFixed(1),
    results: parseSmokeOutput(proc.output(), exit),
  };
}

function failures(row: Row): string[] {
  return [...row.results]
    .filter(([, result]) => result.status === "fail")
    .map(([check, result]) => `${check}: ${result.detail}`);
}

describe.sequential("the packed packages on every runtime", () => {
  for (const runtime of runtimes) {
    it(`run on ${runtime.name}`, async () => {
      if (runtime.binary instanceof Error) {
        const why = runtime.binary.message;
        const results = new Map(
          smokeChecks.map((check) => [check, { status: "fail" as const, detail: why }]),
        );
        rows.push({ runtime: runtime.name, version: "missing", seconds: "-", results });
        throw runtime.binary;
      }
      const row = await runSmoke(runtime, runtime.binary);
      rows.push(row);
      expect(failures(row)).toEqual([]);
    });
  }

  afterAll(() => {
    const header = ["runtime", "version", ...smokeChecks, "seconds"];
    const body = rows.map((row) => [
      row.runtime,
      row.version,
      ...smokeChecks.map((check) => statusMark(row.results.get(check)?.status ?? "fail")),
      row.seconds,
    ]);
    // One line per skipped check and reason, naming the runtimes it applies to.
    const skipped = new Map<string, string[]>();
    for (const row of rows) {
      for (const [check, result] of row.results) {
        if (result.status !== "skipped") continue;
        const why = `${check} skipped (${result.detail})`;
        skipped.set(why, [...(skipped.get(why) ?? []), row.runtime]);
      }
    }
    const notes = [...skipped].map(
      ([why, on]) => `  ${why} on ${on.length === rows.length ? "every runtime" : on.join(", ")}`,
    );
    console.log(`\nRuntime matrix (ok = passed):\n${textTable(header, body)}\n${notes.join("\n")}`);
  });
});
