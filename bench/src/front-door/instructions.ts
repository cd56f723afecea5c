import { readFileSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { join } from "node:path";
import { getFreePort, startProcess, waitForHttp } from "@finetune-studio/testing";

// What HAProxy itself spends per request, counted rather than timed: under valgrind's callgrind, on one
// thread, the same HAProxy configuration answers `few` and then `many` requests in two runs; the difference
// of the instruction totals over the difference of the counts is its cost per request, start-up and idle
// health checks left out. Other processes on the machine do not change it.

const FEW = 500;
const MANY = 2_500;

/** Sends `count` chat completions over 16 keep-alive connections; throws if any is not a 200. */
async function sendRequests(port: number, model: string, stream: boolean, count: number): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const body = JSON.stringify({ model, messages: [{ role: "user", content: "hi" }], max_tokens: 16, stream });
  let sent = 0;
  let failed = 0;
  const one = () =>
    new Promise<void>((resolve) => {
      const headers = { "content-type": "application/json", "content-length": Buffer.byteLength(body) };
      const req = request(
        { host: "127.0.0.1", port, method: "POST", path: "/v1/chat/completions", agent, headers },
        (res) => {
          res.resume();
          res.on("end", () => {
            if (res.statusCode !== 200) failed += 1;
            resolve();
          });
        },
      );
      req.on("error", () => {
        failed += 1;
        resolve();
      });
      req.end(body);
    });
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (sent < count) {
        sent += 1;
        await one();
      }
    }),
  );
  agent.destroy();
  if (failed > 0) throw new Error(`${failed} of ${count} requests through HAProxy under callgrind failed`);
}

/** HAProxy's total instructions while it answers `count` requests (start and stop included). */
async function instructionTotal(
  config: (port: number) => string,
  dir: string,
  model: string,
  stream: boolean,
  count: number,
): Promise<number> {
  const port = await getFreePort();
  const file = join(dir, "callgrind.cfg");
  // One thread, so the count is the same whichever thread takes a connection.
  writeFileSync(file, config(port).replace(/^global$/m, "global\n    nbthread 1"));
  const out = join(dir, `callgrind.${count}.out`);
  const proc = startProcess("valgrind", [
    "--tool=callgrind",
    `--callgrind-out-file=${out}`,
    "haproxy",
    "-db",
    "-f",
    file,
  ]);
  try {
    // HAProxy passes /health on to a stand-in: a 200 means it listens and forwards.
    await waitForHttp(`http://127.0.0.1:${port}/health`, {
      timeoutMs: 60_000,
      process: proc,
      isReady: (status) => status === 200,
    });
    await sendRequests(port, model, stream, count);
  } finally {
    // callgrind writes its totals when HAProxy exits on SIGTERM.
    await proc.stop(60_000);
  }
  const summary = /^summary: (\d+)/m.exec(readFileSync(out, "utf8"));
  if (summary?.[1] === undefined) throw new Error(`callgrind wrote no summary to ${out}`);
  return Number(summary[1]);
}

/** Instructions HAProxy runs per request with `config(port)` (a whole configuration listening on port). */
export async function instructionsPerRequest(
  config: (port: number) => string,
  dir: string,
  model: string,
  stream: boolean,
): Promise<number> {
  const few = await instructionTotal(config, dir, model, stream, FEW);
  const many = await instructionTotal(config, dir, model, stream, MANY);
  return (many - few) / (MANY - FEW);
}
