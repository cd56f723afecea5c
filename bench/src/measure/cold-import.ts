// The time to import a package in a fresh Node.js process: what a CLI or a serverless cold start pays.
// Each run is a new `node` whose only work is the import, timed inside it so Node's own start-up is left
// out; runs of the packages alternate, after one untimed run each to fill the OS file cache.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { millis, ratio } from "../format.js";
import { median } from "../stats.js";
import { markdownTable } from "../table.js";

const run = promisify(execFile);
const benchDir = fileURLToPath(new URL("../..", import.meta.url));

const modules = ["@finetune-studio/client", "openapi-fetch", "openai"] as const;

async function importMs(specifier: string): Promise<number> {
  const script = `const t = performance.now(); await import(${JSON.stringify(specifier)}); process.stdout.write(String(performance.now() - t));`;
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], {
    cwd: benchDir, // bare specifiers resolve from the bench package, like an app's own dependencies
    timeout: 30_000,
  });
  const ms = Number(stdout);
  if (!Number.isFinite(ms)) throw new Error(`importing ${specifier} printed ${JSON.stringify(stdout)}`);
  return ms;
}

export async function measureColdImports(runs: number): Promise<string> {
  const samples = new Map<string, number[]>(modules.map((name) => [name, []]));
  for (const name of modules) await importMs(name);
  for (let i = 0; i < runs; i++) {
    for (const name of modules) samples.get(name)?.push(await importMs(name));
  }
  const medians = modules.map((name) => ({ name, ms: median(samples.get(name) ?? []) }));
  const reference = medians[0]?.ms ?? 1;
  return markdownTable(
    ["import", `median of ${runs} fresh processes`, "min", "vs our client"],
    medians.map(({ name, ms }) => [
      name,
      millis(ms),
      millis(Math.min(...(samples.get(name) ?? []))),
      ratio(ms, reference),
    ]),
  );
}
