import { createServer } from "node:net";
import { getFreePort, getFreePortFollowedBy } from "@finetune-studio/testing";
import { describe, expect, it } from "vitest";
import { fakeVllmEnv } from "./test/cli-process.js";
import { smiListing } from "./test/fleet-launch.js";
import { runCapture } from "./test/run-cli.js";

// launch --instances / --gpus / --runtime-lora, reload and adapter: bad input is refused with exit code 2
// (or 1 for a missing GPU) before anything starts.

describe("multi-instance arguments", () => {
  it.each<[string, string[], RegExp]>([
    ["--instances 0", ["--instances", "0"], /--instances: must be a whole number from 1 to 16 \(given "0"\)/],
    ["--instances two", ["--instances", "two"], /--instances: must be a whole number/],
    ["--gpus with a repeat", ["--gpus", "0,0"], /--gpus: must list 1 to 64 different GPU/],
    ["--gpus with a shell word", ["--gpus", "0;rm"], /--gpus: must list/],
    ["--instances and --gpus disagree", ["--instances", "3", "--gpus", "0,1"], /3 does not match the 2 GPUs/],
    [
      "--gpus that do not split into instances of --tensor-parallel-size",
      ["--gpus", "0,1,2", "--tensor-parallel-size", "2"],
      /--gpus: 3 GPUs do not make whole instances of --tensor-parallel-size 2 \(each instance takes 2\)/,
    ],
    [
      "--instances and --gpus that disagree with --tensor-parallel-size",
      ["--instances", "2", "--gpus", "0,1", "--tensor-parallel-size", "2"],
      /--instances: 2 instances of --tensor-parallel-size 2 need 4 GPUs; --gpus lists 2/,
    ],
    [
      "a port whose front-door metrics port (P+N+1) is past 65535",
      ["--instances", "2", "--port", "65533"],
      /--port: the front door's metrics listen on port 65536 \(after the instances'\), above 65535 \(given 65533\)/,
    ],
    [
      "--max-connections 0",
      ["--instances", "2", "--max-connections", "0"],
      /--max-connections: must be a whole number from 1 to 1000000 \(given "0"\)/,
    ],
    [
      "--max-connections without instances",
      ["--max-connections", "100"],
      /--max-connections: sets HAProxy's limit, so it needs --instances or --gpus/,
    ],
    [
      "--routing without instances",
      ["--routing", "session"],
      /--routing: sets HAProxy's routing, so it needs --instances or --gpus/,
    ],
    [
      "--session-header without instances",
      ["--session-header", "x-user"],
      /--session-header: sets HAProxy's routing, so it needs --instances or --gpus/,
    ],
    [
      "--routing that is not a policy",
      ["--instances", "2", "--routing", "random"],
      /--routing: must be one of least-busy, session, prefix \(given "random"\)/,
    ],
    [
      "--session-header that is not a header name",
      ["--instances", "2", "--session-header", "x session#1"],
      /--session-header: must be a header name of letters, digits.*\(given "x session#1"\)/,
    ],
    [
      "--session-header with least-busy routing",
      ["--instances", "2", "--routing", "least-busy", "--session-header", "x-user"],
      /--session-header: applies to --routing session or prefix; least-busy reads no header \(given "x-user"\)/,
    ],
    // An elastic fleet's words (serve-kit's, as `stack values --replicas` takes them).
    [
      "a range that ends below its start",
      ["--instances", "3..1"],
      /--instances: must end at MIN or more \(MIN..MAX\) \(given "3..1"\)/,
    ],
    ["a range from 0", ["--instances", "0..2"], /--instances: must start at 1 or more/],
    ["a range past 16", ["--instances", "1..17"], /--instances: must end at 16 or less \(given "1..17"\)/],
    [
      "an unknown signal",
      ["--instances", "1..2", "--scale-on", "gpu=3"],
      /--scale-on: must name signals queue=N or kv=F.*unknown "gpu"/,
    ],
    [
      "a negative threshold",
      ["--instances", "1..2", "--scale-on", "queue=-1"],
      /--scale-on: queue must be given a number that is not negative/,
    ],
    [
      "a KV share past 1",
      ["--instances", "1..2", "--scale-on", "kv=1.5"],
      /--scale-on: kv must be above 0 and at most 1/,
    ],
    [
      "a duration that is not one",
      ["--instances", "1..2", "--scale-down-after", "soon"],
      /--scale-down-after: must be a duration such as 15s, 5m or 1h/,
    ],
    [
      "an idle that is neither",
      ["--instances", "1..2", "--idle", "hibernate"],
      /--idle: must be one of stop, sleep \(given "hibernate"\)/,
    ],
    [
      "--scale-on without a range",
      ["--scale-on", "queue=3"],
      /--scale-on: needs a range --instances MIN..MAX/,
    ],
    [
      "--idle with a fixed fleet",
      ["--instances", "2", "--idle", "sleep"],
      /--idle: needs a range --instances MIN..MAX \(given --instances 2, a fixed fleet\)/,
    ],
    [
      "a scale rule that is neither",
      ["--instances", "1..2", "--scale-rule", "foo"],
      /--scale-rule: must be one of window, hpa \(given "foo"\)/,
    ],
    [
      "--scale-rule without a range",
      ["--scale-rule", "hpa"],
      /--scale-rule: needs a range --instances MIN..MAX/,
    ],
    [
      "--scale-down-after with equal ends",
      ["--instances", "2..2", "--scale-down-after", "15s"],
      /--scale-down-after: needs a range/,
    ],
  ])("refuses %s with exit code 2", async (_name, flags, message) => {
    const fake = fakeVllmEnv();
    const result = await runCapture(["launch", "full", "acme/m", ...flags], fake.env);
    expect(result.stderr).toMatch(message);
    expect(result.code).toBe(2);
    expect(fake.record()).toBeUndefined();
  });

  it.each<[string, string[]]>([
    ["--runtime-lora on a public address without a key", ["--instances", "2", "--host", "0.0.0.0"]],
    ["--runtime-lora on a single public launch without a key", ["--host", "0.0.0.0"]],
  ])("refuses %s with exit code 2", async (_name, flags) => {
    const fake = fakeVllmEnv();
    const lora = ["launch", "lora", "acme/base", "--adapter", "sql=acme/sql-lora", "--runtime-lora"];
    const result = await runCapture([...lora, ...flags], fake.env);
    expect(result.stderr).toMatch(/--runtime-lora: .*needs an API key/);
    expect(result.code).toBe(2);
    expect(fake.record()).toBeUndefined();
  });

  it.each<[string, string[], RegExp]>([
    ["reload --port 0", ["reload", "--port", "0"], /--port: must be the port/],
    ["reload with an argument", ["reload", "now"], /unexpected argument "now"/],
    ["adapter with no action", ["adapter"], /say load or unload/],
    ["adapter with a bad name", ["adapter", "load", "../x", "/p"], /<name>: must be 1 to 128/],
    ["adapter load without a path", ["adapter", "load", "sql"], /<path>: load needs/],
    ["adapter with an unknown flag", ["adapter", "load", "sql", "/p", "--force"], /--force/],
  ])("refuses %s with exit code 2", async (_name, args, message) => {
    const result = await runCapture(args, {});
    expect(result.stderr).toMatch(message);
    expect(result.code).toBe(2);
  });

  it("refuses GPUs nvidia-smi does not list, before anything starts", async () => {
    const bin = smiListing(2);
    const fake = fakeVllmEnv();
    const env = { ...fake.env, PATH: `${bin}:${fake.env.PATH}` };
    const port = String(await getFreePort());
    const result = await runCapture(["launch", "full", "acme/m", "--port", port, "--gpus", "1,3"], env);
    expect(result.stderr).toMatch(/--gpus: this machine has no GPU 3/);
    expect(result.code).toBe(1);
    expect(fake.record()).toBeUndefined();
  });

  it("refuses a MAX past the GPUs (with tensor parallelism, as --instances N splits them) with exit code 2, before anything starts", async () => {
    const fake = fakeVllmEnv();
    const env = { ...fake.env, PATH: `${smiListing(4)}:${fake.env.PATH}` };
    const port = String(await getFreePort());
    const launch = ["launch", "full", "acme/m", "--port", port, "--instances"];
    const wide = await runCapture([...launch, "1..5"], env);
    expect(wide.stderr).toMatch(/--instances: MAX 5: this machine has no GPU 4 \(nvidia-smi -L lists them\)/);
    expect(wide.code).toBe(2);
    const split = await runCapture([...launch, "1..3", "--tensor-parallel-size", "2"], env);
    expect(split.stderr).toMatch(
      /--instances: MAX 3: 3 instances of 2 GPUs need 6; this machine has no GPU 4, 5/,
    );
    expect(split.code).toBe(2);
    expect(fake.record()).toBeUndefined();
  });

  it("refuses a port whose front-door metrics port is taken, before anything starts", async () => {
    const bin = smiListing(2);
    const fake = fakeVllmEnv();
    const env = { ...fake.env, PATH: `${bin}:${fake.env.PATH}` };
    const port = await getFreePortFollowedBy(3);
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(port + 3, "127.0.0.1", resolve));
    try {
      const result = await runCapture(
        ["launch", "full", "acme/m", "--port", String(port), "--instances", "2"],
        env,
      );
      expect(result.stderr).toContain(
        `127.0.0.1:${port + 3}, where the front door serves its metrics (port P+N+1), is not free`,
      );
      expect(result.code).toBe(1);
      expect(fake.record()).toBeUndefined();
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
