import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { requireSystemTool } from "@finetune-studio/testing";

/** Debian's promtool (package `prometheus`); missing, the test fails with one line saying how to install it. */
export const PROMTOOL = requireSystemTool("promtool");

export interface PromtoolResult {
  code: number;
  output: string;
}

/** Runs promtool in `dir`, bounded in time; resolves with its exit code and everything it printed. */
export function promtool(args: readonly string[], dir: string): Promise<PromtoolResult> {
  return new Promise((resolve, reject) => {
    execFile(PROMTOOL, args, { cwd: dir, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== "number") {
        reject(new Error(`could not run ${PROMTOOL}: ${error.message}`));
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

/** Asks a running Prometheus an instant query through its HTTP API; bounded in time. */
export async function queryPrometheus(
  baseUrl: string,
  query: string,
): Promise<{ metric: Record<string, string>; value: [number, string] }[]> {
  const response = await fetch(`${baseUrl}/api/v1/query?query=${encodeURIComponent(query)}`, {
    signal: AbortSignal.timeout(5_000),
  });
  const body = (await response.json()) as { status: string; data?: { result?: unknown } };
  if (body.status !== "success" || !Array.isArray(body.data?.result)) {
    throw new Error(`query ${query} failed: ${JSON.stringify(body).slice(0, 300)}`);
  }
  return body.data.result as { metric: Record<string, string>; value: [number, string] }[];
}
