import { createChatClient } from "@finetune-studio/client";
import {
  type BenchRequestRecord,
  capacityFromSweep,
  computeBenchMetrics,
  parseSlo,
  type SweepPoint,
} from "@finetune-studio/serve-kit";
import { afterAll, describe, expect, it } from "vitest";
import { type Schedule, type ScheduleServer, startScheduleServer } from "../test/schedule-server.js";
import { syntheticRequests } from "./prompts.js";
import { type LoadShape, runLoad } from "./run-load.js";

// Against a stand-in whose schedule is known, the bench measures what the schedule says.
// Tolerances are stated and generous: the stand-in and the load share two cores with the test runner.
const TOLERANCE_MS = 40;

const servers: ScheduleServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

async function measure(schedule: Schedule, shape: LoadShape, count: number, slo?: string) {
  const server = await startScheduleServer(schedule);
  servers.push(server);
  const chat = createChatClient({ baseUrl: server.url, maxRetries: 0 });
  const run = await runLoad({
    chat,
    requests: syntheticRequests("stand-in", count, 16, schedule.chunks),
    count,
    shape,
    timeoutMs: 30_000,
    signal: new AbortController().signal,
  });
  return {
    run,
    metrics: computeBenchMetrics(
      run.records,
      run.durationSeconds,
      slo === undefined ? undefined : parseSlo(slo),
    ),
  };
}

describe("bench against a known schedule: first chunk after 80 ms, then one every 20 ms, 10 chunks", {
  timeout: 60_000,
}, () => {
  const schedule: Schedule = { firstChunkMs: 80, chunkEveryMs: 20, chunks: 10, promptTokens: 16 };
  // One request takes 80 + 9 × 20 = 260 ms.
  it.each<[string, LoadShape, number]>([
    ["concurrency 1", { kind: "concurrency", concurrency: 1 }, 1 / 0.26],
    ["concurrency 4", { kind: "concurrency", concurrency: 4 }, 4 / 0.26],
    ["rate 5 (Poisson)", { kind: "rate", rate: 5, burstiness: 1, seed: 1 }, 5],
    ["rate 12 (Poisson)", { kind: "rate", rate: 12, burstiness: 1, seed: 2 }, 12],
  ])("%s: TTFT, TPOT, ITL, E2E and throughput as scheduled", async (_name, shape, requestsPerSecond) => {
    const { metrics } = await measure(schedule, shape, 24);
    expect(metrics.completed).toBe(24);
    expect(metrics.failed).toBe(0);
    expect(metrics.ttftMs?.median).toBeGreaterThanOrEqual(80);
    expect(metrics.ttftMs?.median).toBeLessThan(80 + TOLERANCE_MS);
    expect(Math.abs((metrics.tpotMs?.median ?? Number.NaN) - 20)).toBeLessThan(8);
    expect(Math.abs((metrics.itlMs?.median ?? Number.NaN) - 20)).toBeLessThan(8);
    expect(metrics.e2elMs?.median).toBeGreaterThanOrEqual(260);
    expect(metrics.e2elMs?.median).toBeLessThan(260 + TOLERANCE_MS * 2);
    expect(metrics.totalOutputTokens).toBe(240);
    expect(metrics.totalInputTokens).toBe(24 * 16);
    // A rate run's throughput follows the arrivals (n / rate seconds plus the last request's time).
    expect(metrics.requestThroughput / requestsPerSecond).toBeGreaterThan(0.6);
    expect(metrics.requestThroughput / requestsPerSecond).toBeLessThan(1.15);
  });
});

describe("bench against a stand-in that degrades with load", { timeout: 120_000 }, () => {
  it("finds the knee the stand-in was built with", async () => {
    // First chunk after 20 + 120 × open ms: 140 ms alone, 260 with 2 open, 380 with 3, 500 with 4.
    // Under ttft=320ms the knee is concurrency 2, 60 ms from the levels on either side: a loaded machine's
    // scheduling delays stay well inside that.
    const schedule: Schedule = {
      firstChunkMs: 20,
      msPerOpenRequest: 120,
      chunkEveryMs: 5,
      chunks: 3,
      promptTokens: 8,
    };
    const points: SweepPoint[] = [];
    for (const concurrency of [1, 2, 3, 4]) {
      const { metrics } = await measure(
        schedule,
        { kind: "concurrency", concurrency },
        concurrency * 8,
        "ttft=320ms",
      );
      points.push({ load: concurrency, metrics });
    }
    const answer = capacityFromSweep(points, { targetRps: 20 });
    expect(answer).toMatchObject({ highestLoad: 2, firstFailingLoad: 3 });
    // Two open at a time, about 260 + 10 ms each: about 7.4 good requests per second.
    expect(answer.requestsPerSecond).toBeGreaterThan(5);
    expect(answer.instances).toBeGreaterThanOrEqual(2);
  });
});

describe("a rate capped by a concurrency, as vLLM's --request-rate with --max-concurrency", {
  timeout: 60_000,
}, () => {
  it("keeps the arrivals' schedule and sends each waiting one, in order, as a slot frees", async () => {
    // Arrivals every 100 ms (infinite burstiness: even gaps); each request takes 200 + 10 ms; one slot.
    const schedule: Schedule = { firstChunkMs: 200, chunkEveryMs: 10, chunks: 2, promptTokens: 8 };
    const shape: LoadShape = {
      kind: "rate",
      rate: 10,
      burstiness: Number.POSITIVE_INFINITY,
      seed: 0,
      maxConcurrency: 1,
    };
    const { run, metrics } = await measure(schedule, shape, 4);
    expect(metrics.completed).toBe(4);
    expect(run.reachedConcurrency).toBe(1);
    expect(metrics.peakConcurrency).toBe(1);
    const records = [...run.records].sort((a, b) => a.startMs - b.startMs);
    // The first is due at 100 ms (a timer may fire a millisecond early); each later one arrived while the
    // slot was taken and goes out as it frees.
    expect(records[0]?.startMs).toBeGreaterThan(98);
    for (let i = 1; i < records.length; i++) {
      const previous = records[i - 1] as BenchRequestRecord;
      const start = (records[i] as BenchRequestRecord).startMs;
      expect(start).toBeGreaterThanOrEqual(previous.startMs + previous.latencyMs);
      expect(start - (previous.startMs + previous.latencyMs)).toBeLessThan(TOLERANCE_MS);
    }
  });
});
