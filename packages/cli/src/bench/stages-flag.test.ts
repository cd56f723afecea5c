import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv } from "../test/cli-process.js";
import { runCapture } from "../test/run-cli.js";

// bench --stages refused before any request: its own rule (serve-kit's parseStages, named as the flag) and
// the flags it cannot go with, as BENCH_ARGS declares them. A real server counts what reaches it: nothing.

let requests = 0;
const server = createServer((_, response) => {
  requests++;
  response.writeHead(500).end();
});
let url = "";
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const STAGES = ["--stages", "2:60s,12:120s,2:120s"];
const OPEN_LOOP = "which sets the rate and how long it lasts, stage by stage, sent open-loop as --rate sends";

describe("bench --stages refuses", () => {
  it.each([
    [
      ["--stages", ""],
      /^studio-serve: --stages: must be rate:duration stages separated by commas: .* \(given an empty string\)/,
    ],
    [["--stages", "12"], /--stages: must be rate:duration stages .*; stage 1 \(12\) is not \(given "12"\)/],
    [["--stages", "2:60s,x:1m"], /; stage 2 \(x:1m\) is not \(given "2:60s,x:1m"\)/],
    [
      ["--stages", "2:60s,1:0.5s"],
      /--stages: stage 2 \(1:0.5s\) must last at least 1s \(given "2:60s,1:0.5s"\)/,
    ],
    [["--stages", "0:10s,0:1m"], /--stages: must send requests in one stage at least/],
    [
      ["--stages", "1000:24h"],
      /--stages: must schedule at most 1000000 requests together \(these ask 86400000\)/,
    ],
    [["--stages", "1:13h,1:12h"], /--stages: must last at most 24h together/],
    [[...STAGES, "--rate", "2"], `--rate: does not apply to --stages, ${OPEN_LOOP}`],
    [[...STAGES, "--concurrency", "4"], `--concurrency: does not apply to --stages, ${OPEN_LOOP}`],
    [[...STAGES, "--sweep", "rate:1,2"], `--sweep: does not apply to --stages, ${OPEN_LOOP}`],
    [[...STAGES, "--requests", "10"], `--requests: does not apply to --stages, ${OPEN_LOOP}`],
    [[...STAGES, "--duration", "30"], `--duration: does not apply to --stages, ${OPEN_LOOP}`],
    [[...STAGES, "--conversations", "3"], `--conversations: does not apply to --stages, ${OPEN_LOOP}`],
  ])("%j, exit 2, naming the flag, before any request", async (flags, message) => {
    const result = await runCapture(["bench", url, ...flags], cleanEnv());
    if (typeof message === "string")
      expect(result.stderr).toContain(`studio-serve: ${message} (see studio-serve bench --help)`);
    else expect(result.stderr).toMatch(message);
    expect(result.code).toBe(2);
    expect(requests).toBe(0);
  });

  it("is in bench's help with the load flags, and --burstiness and --seed say they apply to it", async () => {
    const help = (await runCapture(["bench", "--help"], cleanEnv())).stdout;
    expect(help).toMatch(/Load \(--concurrency, --rate, --stages or --sweep;/);
    expect(help).toMatch(
      /^ {2}--stages R1:D1,R2:D2,\.\.\. +a load that changes: R requests per second for D \(s, m or h\),$/m,
    );
    expect(help).toMatch(/--burstiness B +with --rate or --stages: gamma-distributed gaps/);
    expect(help).toMatch(/--seed S +with --rate or --stages: the seed of the arrival times/);
  });
});
