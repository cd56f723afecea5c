import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

// wrk (Debian's, C, two threads) drives the load: the front door is measured, not the load generator. Its
// Lua `done` hook prints one JSON line with the counts and the latency percentiles.

export interface WrkResult {
  requests: number;
  durationUs: number;
  /** Connect, read, write and timeout errors, and answers that were not 2xx or 3xx. */
  errors: number;
  p50Us: number;
  p99Us: number;
}

/** A chat completion request, streamed or not, as wrk sends it on each keep-alive connection. */
export function writeWrkScript(dir: string, model: string, stream: boolean): string {
  const body = JSON.stringify({ model, messages: [{ role: "user", content: "hi" }], max_tokens: 16, stream });
  const file = join(dir, stream ? "stream.lua" : "json.lua");
  writeFileSync(
    file,
    [
      'wrk.method = "POST"',
      `wrk.body = ${JSON.stringify(body)}`,
      'wrk.headers["Content-Type"] = "application/json"',
      "done = function(summary, latency, requests)",
      "  local e = summary.errors",
      '  io.write(string.format(\'{"requests":%d,"durationUs":%d,"errors":%d,"p50Us":%d,"p99Us":%d}\\n\',',
      "    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout,",
      "    latency:percentile(50), latency:percentile(99)))",
      "end",
      "",
    ].join("\n"),
  );
  return file;
}

export function runWrk(
  url: string,
  script: string,
  connections: number,
  seconds: number,
): Promise<WrkResult> {
  const args = ["-t2", `-c${connections}`, `-d${seconds}s`, "--timeout", "30s", "-s", script, url];
  return new Promise((resolve, reject) => {
    execFile(
      "wrk",
      args,
      { timeout: (seconds + 60) * 1000, maxBuffer: 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`wrk ${args.join(" ")} failed: ${error.message} ${stderr}`));
        const line = stdout.trim().split("\n").at(-1) ?? "";
        try {
          resolve(JSON.parse(line) as WrkResult);
        } catch {
          reject(new Error(`wrk printed no result line: ${stdout.slice(-300)}`));
        }
      },
    );
  });
}

/** Requests per second over the run. */
export function rate(result: WrkResult): number {
  return result.requests / (result.durationUs / 1e6);
}
