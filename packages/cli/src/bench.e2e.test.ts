import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { getFreePort, type ManagedProcess, waitForOutput } from "@finetune-studio/testing";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { cleanEnv, startCli, tempDir } from "./test/cli-process.js";
import { sharedFileMode } from "./test/file-mode.js";
import { type ScheduleServer, startScheduleServer } from "./test/schedule-server.js";

// `studio-serve bench` for real: the built CLI against stand-ins with a known schedule.

const servers: ScheduleServer[] = [];
const clis: ManagedProcess[] = [];
afterEach(async () => {
  await Promise.all(clis.splice(0).map((proc) => proc.stop()));
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

async function standIn(extra: { apiKey?: string; chunkEveryMs?: number; chunks?: number } = {}) {
  const server = await startScheduleServer({
    firstChunkMs: 30,
    chunkEveryMs: 5,
    chunks: 4,
    promptTokens: 12,
    ...extra,
  });
  servers.push(server);
  return server.url;
}

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
    const json = proc.output().slice(proc.output().indexOf("{"));
    const document = JSON.parse(json.slice(0, json.lastIndexOf("}") + 1));
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
    const records = readFileSync(join(out, "records.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
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
    [
      "a rate and a concurrency",
      ["--rate", "2", "--concurrency", "3"],
      2,
      /--rate and --concurrency: give one/,
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
});
