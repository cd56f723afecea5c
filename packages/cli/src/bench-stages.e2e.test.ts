import { readFileSync } from "node:fs";
import { join } from "node:path";
import { getFreePort, startProcess, waitForHttp, waitForOutput } from "@finetune-studio/testing";
import { describe, expect, it } from "vitest";
import { fakeVllmEnv, startCli, tempDir } from "./test/cli-process.js";
import { stoppedAfterEach } from "./test/stopped-after-each.js";

// bench --stages against a launch of the stand-in vLLM that runs one request at a time (its capacity
// model): a low, a high and a low stage, a few seconds each. The high stage outruns the instance, so
// requests wait, and the timeline's queue (sampled from the instance's own /metrics) must follow the waiting
// the records imply; each stage's row counts its own requests; --out writes the timeline beside the rest.

const running = stoppedAfterEach();
const STAND_IN = new URL("./test/fixtures/fake-vllm.mjs", import.meta.url).pathname;
const TOKEN_MS = 20;
const STAGES = "1:2s,10:2s,1:2s";

interface Row {
  second: number;
  sent: number;
  answered: number;
  failed: number;
  serving: number | null;
  queue: number | null;
}
interface Record {
  ok: boolean;
  startMs: number;
  ttftMs: number;
  stage: number;
}

/**
 * The requests waiting at `t` as the stand-in's scheduler holds them: from a request's sending to its start,
 * one token step before its first token (the stand-in's TTFT is the time queued plus one step).
 */
function waitingAt(records: readonly Record[], t: number): number {
  return records.filter((r) => r.startMs <= t && t < r.startMs + r.ttftMs - TOKEN_MS).length;
}

describe("bench --launch P --stages", { timeout: 120_000 }, () => {
  it("reports each stage, and writes a timeline whose queue follows the instance's waiting requests", async () => {
    const port = await getFreePort();
    const fake = fakeVllmEnv({
      FAKE_VLLM_PRISM: "0",
      FAKE_VLLM_LOAD_MS: "300",
      FAKE_VLLM_MAX_RUNNING: "1",
      FAKE_VLLM_TOKEN_MS: String(TOKEN_MS),
    });
    const launch = startCli(
      ["launch", "full", "acme/m", "--port", String(port), "--stop-timeout", "5"],
      fake.env,
    );
    running.push(launch);
    await waitForOutput(launch, /^ready: /m, 60_000);

    const out = join(tempDir("stages-"), "run");
    const args = ["bench", "--launch", String(port), "--stages", STAGES, "--output-tokens", "8"];
    const bench = startCli([...args, "--burstiness", "inf", "--out", out], fake.env);
    running.push(bench);
    expect(await bench.exited).toBe(0);
    const output = bench.output();
    // Each stage's start on the progress line, the per-stage table on stdout.
    expect(output).toMatch(/bench: stage 1 of 3 at 0 s: 1 req\/s for 2 s/);
    expect(output).toMatch(/bench: stage 2 of 3 at 2 s: 10 req\/s for 2 s/);
    expect(output).toMatch(/bench: stage 3 of 3 at 4 s: 1 req\/s for 2 s/);
    expect(output).toMatch(/^STAGE +REQ\/S +FROM +FOR +SENT +ANSWERED +FAILED +TTFT p50\/p95$/m);
    expect(output).toMatch(/^2 +10 +2 s +2 s +20 +20 +0 +\d+ ms \/ \d+ ms$/m);

    const read = (name: string) => readFileSync(join(out, name), "utf8");
    const summary = JSON.parse(read("summary.json"));
    expect(
      summary.stages.map((s: Record & { [k: string]: unknown }) => [
        s.stage,
        s.rate,
        s.sent,
        s.answered,
        s.failed,
      ]),
    ).toEqual([
      [1, 1, 2, 2, 0],
      [2, 10, 20, 20, 0],
      [3, 1, 2, 2, 0],
    ]);
    // The high stage queued: its TTFT tail is far past an idle instance's one step.
    expect(summary.stages[1].ttftP95Ms).toBeGreaterThan(summary.stages[0].ttftP95Ms + 5 * TOKEN_MS);

    const records = read("records.jsonl")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record);
    expect(records.map((r) => r.stage).sort()).toEqual([
      ...Array(2).fill(1),
      ...Array(20).fill(2),
      ...Array(2).fill(3),
    ]);

    // The CSV is the JSON's timeline, one row a second.
    const rows = summary.timeline as Row[];
    const csv = read("timeline.csv").trim().split("\n");
    expect(csv[0]).toBe("second,sent,answered,failed,ttft_p50_ms,ttft_p95_ms,serving,queue");
    expect(csv.slice(1).map((line) => line.split(",")[7])).toEqual(
      rows.map((r) => (r.queue === null ? "" : String(r.queue))),
    );
    expect(rows.reduce((sum, r) => sum + r.sent, 0)).toBe(24);
    expect(rows.reduce((sum, r) => sum + r.answered, 0)).toBe(24);

    // The queue follows the waiting the records imply: each second's sample (taken within it, or up to two
    // seconds before when a busy machine held the sampler back) lies within what the scheduler held then (a
    // little past the second's end too: the client sees a request start a few ms after the stand-in does);
    // the high stage queued.
    const sampled = rows.filter((r) => r.queue !== null);
    expect(sampled.length).toBeGreaterThanOrEqual(rows.length - 2);
    for (const row of sampled) {
      expect(row.serving).toBe(1);
      const held: number[] = [];
      for (let t = (row.second - 2) * 1000; t < (row.second + 1) * 1000 + 200; t += 5) {
        held.push(waitingAt(records, t));
      }
      expect(row.queue, `second ${row.second}`).toBeGreaterThanOrEqual(Math.min(...held));
      expect(row.queue, `second ${row.second}`).toBeLessThanOrEqual(Math.max(...held));
    }
    expect(Math.max(...sampled.map((r) => r.queue as number))).toBeGreaterThanOrEqual(4);
    expect(sampled[0]?.queue).toBe(0);

    const svg = read("timeline.svg");
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(svg).toContain("10 req/s");
    expect(svg).toMatch(/<path [^>]*d="M[^"]+"><title>waiting<\/title>/);
  });

  it("Ctrl-C keeps what was measured: the stages reached, a timeline to the second it stopped (a URL: no fleet read)", async () => {
    const port = await getFreePort();
    const fake = fakeVllmEnv({ FAKE_VLLM_PRISM: "0", FAKE_VLLM_TOKEN_MS: String(TOKEN_MS) });
    const standIn = startProcess(process.execPath, [STAND_IN, "serve", "acme/m", "--port", String(port)], {
      env: fake.env,
    });
    running.push(standIn);
    const url = `http://127.0.0.1:${port}`;
    await waitForHttp(`${url}/health`, { process: standIn, isReady: (status) => status === 200 });

    const out = join(tempDir("stages-"), "run");
    const bench = startCli(
      ["bench", url, "--stages", "4:30s,8:30s", "--output-tokens", "4", "--out", out],
      fake.env,
    );
    running.push(bench);
    // The progress line comes every 5 s in a log: by then some requests were answered.
    await waitForOutput(bench, /bench: stages 4:30s,8:30s \(stage 1 of 2\): [1-9]\d* done/, 60_000);
    bench.child.kill("SIGINT");
    expect(await bench.exited).toBe(130);
    expect(bench.output()).toContain("stopping the run; what was measured is kept");
    expect(bench.output()).not.toContain("stage 2 of 2 at");
    expect(bench.output()).toMatch(/^2 +8 +30 s +30 s +0 +0 +0 +n\/a$/m);

    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
    expect(summary.interrupted).toBe(true);
    const [first, second] = summary.stages;
    expect(first.sent).toBeGreaterThan(0);
    expect(first.answered + first.failed).toBe(first.sent);
    expect(second).toMatchObject({ sent: 0, answered: 0, failed: 0, ttftP50Ms: null });
    // Rows to the second it stopped, not to the stages' 60: and no fleet was read, so none says one.
    const rows = summary.timeline as Row[];
    expect(rows.length).toBeGreaterThanOrEqual(5);
    expect(rows.length).toBeLessThan(30);
    expect(rows.every((row) => row.serving === null && row.queue === null)).toBe(true);
    expect(readFileSync(join(out, "timeline.csv"), "utf8").split("\n")).toHaveLength(rows.length + 2);
    expect(readFileSync(join(out, "timeline.svg"), "utf8")).toContain("4 req/s");
  });
});
