import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { getFreePort, type ManagedProcess, waitForOutput } from "@finetune-studio/testing";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { cleanEnv, startCli, tempDir } from "./test/cli-process.js";
import { sharedFileMode } from "./test/file-mode.js";
import { type Schedule, type ScheduleServer, startScheduleServer } from "./test/schedule-server.js";

// `studio-serve bench` for real: the built CLI against stand-ins with a known schedule.

const servers: ScheduleServer[] = [];
const clis: ManagedProcess[] = [];
afterEach(async () => {
  await Promise.all(clis.splice(0).map((proc) => proc.stop()));
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

async function standIn(extra: Partial<Schedule> = {}) {
  return (await standInServer(extra)).url;
}

async function standInServer(extra: Partial<Schedule> = {}) {
  const server = await startScheduleServer({
    firstChunkMs: 30,
    chunkEveryMs: 5,
    chunks: 4,
    promptTokens: 12,
    ...extra,
  });
  servers.push(server);
  return server;
}

/** The JSON document a --json run printed on stdout (the progress lines go to stderr, before it). */
function documentOf(proc: ManagedProcess) {
  const json = proc.output().slice(proc.output().indexOf("{"));
  return JSON.parse(json.slice(0, json.lastIndexOf("}") + 1));
}

const readRecords = (dir: string) =>
  readFileSync(join(dir, "records.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));

function bench(args: string[], env: NodeJS.ProcessEnv = {}): ManagedProcess {
  const proc = startCli(["bench", ...args], cleanEnv(env));
  clis.push(proc);
  return proc;
}

describe("studio-serve bench", { timeout: 90_000 }, () => {
  it("--json: one document with the metrics of each level and the capacity of a sweep", async () => {
    const url = await standIn();
    const proc = bench([
      url,
      "--sweep",
      "concurrency:1,2",
      "--requests",
      "6",
      "--slo",
      "ttft=2s",
      "--target-rps",
      "10",
      "--json",
    ]);
    expect(await proc.exited).toBe(0);
    const document = documentOf(proc);
    expect(document).toMatchObject({
      model: "stand-in",
      loadName: "concurrency",
      slo: { ttftMs: 2000 },
      interrupted: false,
    });
    expect(document.levels.map((level: { load: number }) => level.load)).toEqual([1, 2]);
    expect(document.levels[0].metrics).toMatchObject({ completed: 6, failed: 0, totalOutputTokens: 24 });
    expect(document.capacity).toMatchObject({ highestLoad: 2, firstFailingLoad: null });
    expect(document.capacity.instances).toBeGreaterThanOrEqual(1);
  });

  it("prints a table and the fleet a target needs; --out writes records, summary and chart", async () => {
    const url = await standIn();
    const out = join(tempDir("bench-out-"), "run");
    const proc = bench([
      url,
      "--sweep",
      "rate:20,40",
      "--requests",
      "8",
      "--slo",
      "ttft=2s,tpot=1s",
      "--target-rps",
      "100",
      "--out",
      out,
    ]);
    expect(await proc.exited).toBe(0);
    expect(proc.output()).toMatch(/^LOAD\s+REQ\/S\s+OUT TOK\/S\s+TTFT p50\/p99/m);
    expect(proc.output()).toMatch(/^rate 20\s/m);
    expect(proc.output()).toMatch(
      /for 100 req\/s: launch --instances \d+ \(or replicaCount \d+\), each kept 20% below/,
    );
    expect(readdirSync(out).sort()).toEqual(["latency.svg", "records.jsonl", "summary.json"]);
    for (const name of readdirSync(out))
      expect(statSync(join(out, name)).mode & 0o777).toBe(sharedFileMode());
    const records = readRecords(out);
    expect(records).toHaveLength(16);
    expect(records[0]).toMatchObject({ ok: true, outputTokens: 4, promptTokens: 12 });
    expect(readFileSync(join(out, "latency.svg"), "utf8")).toContain("<polyline");
  });

  it("Ctrl-C ends the run, still reports what was measured, and exits 130", async () => {
    const url = await standIn({ chunkEveryMs: 100, chunks: 20 });
    const proc = bench([url, "--concurrency", "2", "--requests", "1000"]);
    await waitForOutput(proc, /bench: concurrency 2: [1-9]\d* done/, 30_000);
    proc.child.kill("SIGINT");
    expect(await proc.exited).toBe(130);
    expect(proc.output()).toContain("stopping the run; what was measured is kept");
    expect(proc.output()).toMatch(/^concurrency 2\s/m);
  });

  it.each([
    ["an SLO it cannot read", ["--slo", "ttft<500"], 2, /--slo: must be metric=time pairs/],
    ["a rate and a sweep", ["--rate", "2", "--sweep", "rate:1,2"], 2, /--rate and --sweep: give one/],
    [
      "a concurrency sweep and a concurrency",
      ["--sweep", "concurrency:1,2", "--concurrency", "3"],
      2,
      /--concurrency and --sweep concurrency:\.\.\.: give one way/,
    ],
    [
      "an infinite rate for a duration, uncapped",
      ["--sweep", "rate:1,inf", "--duration", "5"],
      2,
      /--duration: an infinite rate sends every request at once, without end; cap the requests in flight with --concurrency N/,
    ],
    [
      "a rate and a duration past the requests a run may hold",
      ["--rate", "20000", "--duration", "60"],
      2,
      /--duration: with rate 20000, must schedule at most 1000000 requests \(given "60"\)/,
    ],
    [
      "a sweep it cannot read",
      ["--sweep", "users:1,2"],
      2,
      /--sweep: must be rate:R1,R2,... or concurrency:N1,N2,.../,
    ],
    ["a target without an SLO", ["--sweep", "rate:1,2", "--target-rps", "5"], 2, /--target-rps: needs --slo/],
    [
      "a model it does not serve",
      ["--model", "other"],
      1,
      /--model: .* does not serve "other"; it serves stand-in/,
    ],
  ])("refuses %s before any request", async (_name, args, code, message) => {
    const url = await standIn();
    const proc = bench([url, ...args]);
    expect(await proc.exited).toBe(code);
    expect(proc.output()).toMatch(message);
  });

  it("takes the server's /v1 base URL as the same server", async () => {
    const url = await standIn();
    const proc = bench([`${url}/v1`, "--requests", "2", "--json"]);
    expect(await proc.exited).toBe(0);
    // The output holds progress lines on stderr too: the document is from its first "{" to its last "}".
    const json = proc.output().slice(proc.output().indexOf("{"));
    const document = JSON.parse(json.slice(0, json.lastIndexOf("}") + 1));
    expect(document).toMatchObject({ url, model: "stand-in" });
    expect(document.levels[0].metrics).toMatchObject({ completed: 2, failed: 0 });
  });

  it("names the line of a malformed dataset", async () => {
    const url = await standIn();
    const file = join(tempDir("bench-data-"), "traffic.jsonl");
    writeFileSync(
      file,
      `${JSON.stringify({ messages: [{ role: "user", content: "hi" }] })}\n\n{"messages": []}\n`,
    );
    const proc = bench([url, "--dataset", file]);
    expect(await proc.exited).toBe(2);
    expect(proc.output()).toContain(
      '--dataset: line 3: must be a chat request, an object with a non-empty "messages" array',
    );
  });

  it("says so when the server is unreachable, or refuses the key", async () => {
    const dead = bench([`http://127.0.0.1:${await getFreePort()}`]);
    expect(await dead.exited).toBe(1);
    expect(dead.output()).toMatch(/does not answer \/health/);
    const guarded = await standIn({ apiKey: "sk-right-key" });
    const wrong = bench([guarded, "--api-key-env", "MY_KEY"], { MY_KEY: "sk-wrong-key" });
    expect(await wrong.exited).toBe(1);
    expect(wrong.output()).toMatch(/give the server's key with --api-key-env NAME/);
    expect(wrong.output()).not.toContain("sk-wrong-key");
    const right = bench([guarded, "--api-key-env", "MY_KEY", "--requests", "2"], { MY_KEY: "sk-right-key" });
    expect(await right.exited).toBe(0);
  });

  it("a server that fails every request: each record keeps why, the summary counts it, no latency is printed", async () => {
    // vLLM's failure after the headers: a 200 stream whose first event is an error.
    const url = await standIn({
      fail: () => ({ streamError: "This model's maximum context length is 2048 tokens", code: 400 }),
    });
    const out = join(tempDir("bench-fail-"), "run");
    const proc = bench([url, "--concurrency", "2", "--requests", "6", "--out", out]);
    expect(await proc.exited).toBe(1);
    const row = proc.output().match(/^concurrency 2\s.*$/m)?.[0] ?? "";
    // TTFT, TPOT, ITL and E2E: four n/a, and no 0 ms anywhere.
    expect(row.match(/n\/a/g)).toHaveLength(4);
    expect(proc.output()).not.toMatch(/\b0 ms\b/);
    expect(proc.output()).toContain("concurrency 2: 6 of 6 requests failed (no latency measured):");
    expect(proc.output()).toMatch(
      /^ {2}6 × POST \/v1\/chat\/completions sent an error inside the stream: This model's maximum context length is 2048 tokens$/m,
    );
    const records = readRecords(out);
    expect(records).toHaveLength(6);
    for (const record of records) {
      expect(record).toMatchObject({ ok: false, failure: "stream-error" });
      expect(record.error).toContain("maximum context length is 2048 tokens");
    }
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
    expect(summary.levels[0].metrics).toMatchObject({
      completed: 0,
      failed: 6,
      ttftMs: null,
      tpotMs: null,
      itlMs: null,
      e2elMs: null,
    });
  });

  it("failures with distinct reasons: counted by reason, bounded, with neither the key nor an Authorization", async () => {
    const key = "sk-bench-secret-4242";
    const reasons = [
      () => ({ status: 503, message: "engine overloaded, try later" }),
      // A proxy that quotes what it was sent, the key included, and a long trace.
      (authorization: string | undefined) => ({
        status: 500,
        message: `upstream refused Authorization: ${authorization} token=${key}; its own Proxy-Authorization: Basic cHJveHk6cGFzcw==`,
      }),
      // The client quotes up to 500 characters of a stream's error; a reason keeps 300, on one line.
      () => ({ streamError: `prompt too long\n${"  at frame\n".repeat(100)}`, code: 400 }),
      () => undefined,
    ];
    const url = await standIn({ apiKey: key, fail: (index, auth) => reasons[index % 4]?.(auth) });
    const out = join(tempDir("bench-reasons-"), "run");
    const proc = bench([url, "--api-key-env", "MY_KEY", "--requests", "12", "--json", "--out", out], {
      MY_KEY: key,
    });
    expect(await proc.exited).toBe(0);
    const { metrics } = documentOf(proc).levels[0];
    expect(metrics).toMatchObject({
      completed: 3,
      failed: 9,
      failures: { "http-503": 3, "http-500": 3, "stream-error": 3 },
    });
    expect(metrics.failureReasons.map(({ count }: { count: number }) => count)).toEqual([3, 3, 3]);
    expect(metrics.failureReasons[0].reason).toMatch(/answered 503.*engine overloaded, try later/);
    const long = metrics.failureReasons[2].reason as string;
    expect(long).toMatch(/sent an error inside the stream: prompt too long at frame at frame .*…$/);
    expect(Array.from(long)).toHaveLength(300);
    // The successful quarter was measured: a real TTFT beside the failures.
    expect(metrics.ttftMs.median).toBeGreaterThanOrEqual(30);
    for (const text of [proc.output(), readFileSync(join(out, "records.jsonl"), "utf8")]) {
      expect(text).not.toContain(key);
      expect(text).not.toContain("cHJveHk6cGFzcw");
      expect(text).not.toMatch(/Bearer (?!\[redacted\])/);
    }
    const quoted = readRecords(out).find((record) => record.failure === "http-500");
    expect(quoted.error).toMatch(
      /refused Authorization: \[redacted\] token=\[redacted\]; its own Proxy-Authorization: \[redacted\]/,
    );
  });

  it("a sweep says the concurrency each level reached, and warns when --requests cannot reach one", async () => {
    const url = await standIn();
    const out = join(tempDir("bench-reach-"), "run");
    const args = ["--sweep", "concurrency:1,4,16,64", "--requests", "40", "--slo", "e2el=20s"];
    const proc = bench([url, ...args, "--out", out]);
    expect(await proc.exited).toBe(0);
    expect(proc.output()).toContain(
      "studio-serve: warning: concurrency 64: --requests 40 never has more than 40 open at once; give --requests 64 or more (or --duration) to reach 64",
    );
    expect(proc.output()).not.toMatch(/warning: concurrency 16/);
    expect(proc.output()).toMatch(/^concurrency 16\s/m);
    expect(proc.output()).toMatch(/^concurrency 64 \(reached 40\)\s/m);
    // The capacity names the concurrency served, 40, never 64.
    expect(proc.output()).toMatch(/capacity: one instance serves concurrency 40 within the SLOs/);
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
    expect(summary.levels.map((level: { load: number }) => level.load)).toEqual([1, 4, 16, 64]);
    expect(summary.levels.map((level: { reachedConcurrency: number }) => level.reachedConcurrency)).toEqual([
      1, 4, 16, 40,
    ]);
    expect(summary.capacity).toMatchObject({ highestLoad: 40, firstFailingLoad: null });
  });

  it("--rate with --concurrency: the rate schedules arrivals, the concurrency caps requests in flight", async () => {
    // Each request takes about 300 ms: three rounds of three.
    const server = await standInServer({ firstChunkMs: 300 });
    const proc = bench([server.url, "--rate", "inf", "--concurrency", "3", "--requests", "9", "--json"]);
    expect(await proc.exited).toBe(0);
    const [level] = documentOf(proc).levels;
    expect(level).toMatchObject({
      label: "rate inf (max concurrency 3)",
      load: "inf",
      reachedConcurrency: 3,
    });
    expect(level.metrics).toMatchObject({ completed: 9, failed: 0, peakConcurrency: 3 });
    // The server's own count: never more than 3 open, where an uncapped infinite rate opens all 9 at once.
    expect(server.peakOpen()).toBe(3);
    // A request waiting for a slot is not the generator falling behind: the last ones waited two rounds
    // (600 ms) for theirs, and that is no delay of this machine's.
    expect(level.generatorLate.worstMs).toBeLessThan(250);
  });

  it("inf in a rate sweep, beside finite rates, capped by --concurrency", async () => {
    const server = await standInServer();
    const proc = bench([
      server.url,
      "--sweep",
      "rate:50,inf",
      "--concurrency",
      "2",
      "--requests",
      "6",
      "--json",
    ]);
    expect(await proc.exited).toBe(0);
    const document = documentOf(proc);
    expect(document.levels.map(({ label, load }: { label: string; load: unknown }) => [label, load])).toEqual(
      [
        ["rate 50 (max concurrency 2)", 50],
        ["rate inf (max concurrency 2)", "inf"],
      ],
    );
    expect(document.levels[1].metrics.completed).toBe(6);
    expect(server.peakOpen()).toBeLessThanOrEqual(2);
  });
});
