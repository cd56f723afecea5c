import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Debian's promtool (package `prometheus`); .ci/run installs it. */
export const PROMTOOL = process.env.PROMTOOL ?? "/usr/bin/promtool";

export interface PromtoolResult {
  code: number;
  output: string;
}

/** Runs promtool in `dir`, bounded in time; resolves with its exit code and everything it printed. */
export function promtool(args: readonly string[], dir: string): Promise<PromtoolResult> {
  return new Promise((resolve, reject) => {
    execFile(PROMTOOL, args, { cwd: dir, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== "number") {
        reject(new Error(`could not run ${PROMTOOL} (apt-get install -y prometheus): ${error.message}`));
        return;
      }
      resolve({ code: typeof error?.code === "number" ? error.code : 0, output: `${stdout}${stderr}` });
    });
  });
}

/** A temp dir holding `files`; `remove()` deletes it. */
export function tempFiles(files: Record<string, string>): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), "studio-prometheus-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
