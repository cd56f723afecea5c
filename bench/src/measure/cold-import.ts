// The time to import a package in a fresh Node.js process: what a CLI or a serverless cold start pays.
// Each run is a new `node` whose only work is the import, timed inside it so Node's own start-up is left
// out; runs of the packages alternate in a rotating order, after one untimed run each to fill the OS file cache.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { millis } from "../format.js";
import { ratioSpread } from "../report.js";
import { median, perRound, spread } from "../stats.js";
import { markdownTable } from "../table.js";

const run = promisify(execFile);
const benchDir = fileURLToPath(new URL("../..", import.meta.url));

const modules = ["@finetune-studio/client", "openapi-fetch", "openai"] as const;

/** One cold import's time, wall-clock and on the CPU (the process's own, less sensitive to a busy machine). */
interface ImportTime {
  readonly wallMs: number;
  readonly cpuMs: number;
}

async function importTime(specifier: string): Promise<ImportTime> {
  const script = `const c = process.cpuUsage(); const t = performance.now(); await import(${JSON.stringify(specifier)}); const w = performance.now() - t; const u = process.cpuUsage(c); process.stdout.write(JSON.stringify([w, (u.user + u.system) / 1000]));`;
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], {
    cwd: benchDir, // bare specifiers resolve from the bench package, like an app's own dependencies
    timeout: 30_000,
  });
  const [wallMs, cpuMs] = JSON.parse(stdout) as unknown[];
  if (typeof wallMs !== "number" || typeof cpuMs !== "number") {
    throw new Error(`importing ${specifier} printed ${JSON.stringify(stdout)}`);
  }
  return { wallMs, cpuMs };
}

/**
 * Each package's median, and its ratio to openapi-fetch's taken round by round (the packages are imported
 * back to back in each round), as a median with its interquartile range: wall-clock, and CPU time.
 */
export async function measureColdImports(runs: number): Promise<string> {
  const samples = new Map<string, ImportTime[]>(modules.map((name) => [name, []]));
  for (const name of modules) await importTime(name);
  for (let i = 0; i < runs; i++) {
    for (const name of rotated(modules, i)) samples.get(name)?.push(await importTime(name));
  }
  const of = (name: string, part: keyof ImportTime) => (samples.get(name) ?? []).map((time) => time[part]);
  const versus = (name: string, part: keyof ImportTime) =>
    ratioSpread(spread(perRound(of(name, part), of("openapi-fetch", part), (a, b) => a / b)));
  return markdownTable(
    [
      "import",
      `median of ${runs} fresh processes`,
      "min",
      "vs openapi-fetch, per round",
      "vs openapi-fetch, CPU time",
    ],
    modules.map((name) => [
      name,
      millis(median(of(name, "wallMs"))),
      millis(Math.min(...of(name, "wallMs"))),
      versus(name, "wallMs"),
      versus(name, "cpuMs"),
    ]),
  );
}

/** The packages in a rotating order, so that none always runs first. */
function rotated<T>(items: readonly T[], round: number): T[] {
  const shift = round % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}
