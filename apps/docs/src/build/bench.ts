import { existsSync, readFileSync } from "node:fs";
import { repoRoot } from "./paths.js";

/**
 * Hook for the benchmark package: when `bench/RESULTS.md` exists at build time it becomes `bench.html` and the
 * index links to it; until then the site simply has no benchmark page. (apps/docs/turbo.json lists the file
 * as a build input, so writing it invalidates the cached site.)
 */
export const benchResultsPath = `${repoRoot}bench/RESULTS.md`;

export function readBenchResults(path: string = benchResultsPath): string | undefined {
  return existsSync(path) ? readFileSync(path, "utf8") : undefined;
}
