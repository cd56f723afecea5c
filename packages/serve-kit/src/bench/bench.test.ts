import { describe, expect, it } from "vitest";
import { ServeConfigError } from "../errors.js";
import { capacityFromSweep, type SweepPoint } from "./capacity.js";
import { latencyChartSvg } from "./chart.js";
import { type BenchRequestRecord, computeBenchMetrics, percentile, TOP_REASONS } from "./metrics.js";
import { arrivalTimesMs } from "./schedule.js";
import { parseSlo } from "./slo.js";

const record = (over: Partial<BenchRequestRecord>): BenchRequestRecord => ({
  ok: true,
  startMs: 0,
  ttftMs: 100,
  itlMs: [],
  latencyMs: 100,
  promptTokens: 10,
  outputTokens: 1,
  ...over,
});

describe("computeBenchMetrics: vLLM's calculate_metrics (vllm/benchmarks/serve.py at 009e6d4a1cd6)", () => {
  // Three requests over a 2 s run, worked by hand from vLLM's formulas:
  // A: ttft 100, latency 500, 5 output tokens: tpot (500-100)/(5-1) = 100; itl 100,100,100,100
  // B: ttft 200, latency 400, 1 output token: no tpot (its tpot counts as 0 for goodput); no itl
  // C: ttft 300, latency 1300, 11 output tokens: tpot (1300-300)/10 = 100; itl 50 and 150, five each
  // D: failed (a 503).
  const records = [
    record({
      startMs: 0,
      ttftMs: 100,
      latencyMs: 500,
      outputTokens: 5,
      promptTokens: 20,
      itlMs: [100, 100, 100, 100],
    }),
    record({ startMs: 100, ttftMs: 200, latencyMs: 400, outputTokens: 1, promptTokens: 30 }),
    record({
      startMs: 200,
      ttftMs: 300,
      latencyMs: 1300,
      outputTokens: 11,
      promptTokens: 50,
      itlMs: [50, 150, 50, 150, 50, 150, 50, 150, 50, 150],
    }),
    record({ ok: false, failure: "http-503", outputTokens: 0, promptTokens: 0 }),
  ];
  const metrics = computeBenchMetrics(records, 2, { ttftMs: 250, tpotMs: 100 });

  it("counts, throughputs and token totals", () => {
    expect(metrics).toMatchObject({
      completed: 3,
      failed: 1,
      failures: { "http-503": 1 },
      totalInputTokens: 100,
      totalOutputTokens: 17,
      requestThroughput: 1.5,
      outputThroughput: 8.5,
      totalTokenThroughput: 58.5,
    });
  });

  it("TTFT, TPOT, ITL and E2E latency as vLLM computes them, numpy's percentiles", () => {
    // ttfts [100, 200, 300]: mean 200, median 200, p90 = 200 + 0.8 * 100 = 280, p99 = 298
    expect(metrics.ttftMs).toEqual({ mean: 200, median: 200, p90: 280, p95: 290, p99: 298 });
    // tpots [100, 100] only (B has one token)
    expect(metrics.tpotMs).toEqual({ mean: 100, median: 100, p90: 100, p95: 100, p99: 100 });
    // itls: four 100s, five 50s, five 150s: mean (400 + 250 + 750) / 14 = 100
    expect(metrics.itlMs?.mean).toBeCloseTo(100, 10);
    expect(metrics.itlMs?.median).toBe(100);
    expect(metrics.itlMs?.p99).toBe(150);
    // e2els [500, 400, 1300]: sorted 400, 500, 1300: p90 = 500 + 0.8 * 800 = 1140
    expect(metrics.e2elMs).toMatchObject({ mean: 733.3333333333334, median: 500, p90: 1140 });
  });

  it("goodput: completed requests meeting every SLO (B's TPOT counts as 0), per second", () => {
    // ttft <= 250 and tpot <= 100: A (100, 100) and B (200, 0) are good, C (300) is not.
    expect(metrics.goodput).toEqual({ requestsPerSecond: 1, share: 0.5, good: 2 });
    expect(computeBenchMetrics(records, 2).goodput).toBeNull();
  });

  it("peak concurrency over [start, end) intervals", () => {
    // A [0, 500), B [100, 500), C [200, 1500): three at once from 200 to 500.
    expect(metrics.peakConcurrency).toBe(3);
  });

  it("gives no latency, not 0 ms, when nothing completed; throughput is a measured 0", () => {
    const none = computeBenchMetrics([records[3] as BenchRequestRecord], 1);
    expect(none).toMatchObject({ ttftMs: null, tpotMs: null, itlMs: null, e2elMs: null, peakConcurrency: 0 });
    expect(none.requestThroughput).toBe(0);
    // One completed request of one token: a TTFT and an E2E latency, but no TPOT and no ITL to speak of.
    const one = computeBenchMetrics([record({ ttftMs: 40, latencyMs: 40 })], 1);
    expect(one).toMatchObject({ tpotMs: null, itlMs: null, ttftMs: { median: 40 }, e2elMs: { p99: 40 } });
  });

  it("counts the reasons failed requests gave, most frequent first, the first seen first among equals", () => {
    const failed = (failure: string, error?: string) =>
      record({ ok: false, failure, ...(error === undefined ? {} : { error }) });
    const reasons = computeBenchMetrics(
      [
        failed("http-503", "answered 503: overloaded"),
        failed("stream-error", "sent an error inside the stream: prompt too long"),
        failed("http-503", "answered 503: overloaded"),
        failed("timeout"),
        ...["a", "b", "c", "d"].map((letter) => failed("http-500", `answered 500: ${letter}`)),
        failed("stream-error", "sent an error inside the stream: prompt too long"),
        failed("http-503", "answered 503: overloaded"),
      ],
      1,
    );
    expect(reasons.failures).toEqual({ "http-503": 3, "stream-error": 2, timeout: 1, "http-500": 4 });
    expect(reasons.failureReasons).toEqual([
      { reason: "answered 503: overloaded", count: 3 },
      { reason: "sent an error inside the stream: prompt too long", count: 2 },
      { reason: "timeout", count: 1 },
      { reason: "answered 500: a", count: 1 },
      { reason: "answered 500: b", count: 1 },
    ]);
    expect(reasons.failureReasons).toHaveLength(TOP_REASONS);
    expect(metrics.failureReasons).toEqual([{ reason: "http-503", count: 1 }]);
  });

  it("percentile interpolates linearly between ranks, as numpy does", () => {
    expect(percentile([1, 2, 3, 4], 50)).toBe(2.5);
    expect(percentile([10], 99)).toBe(10);
    expect(percentile([4, 1, 3, 2], 75)).toBe(3.25);
  });
});

describe("arrivalTimesMs", () => {
  it("sends n requests over n / rate seconds, the same for the same seed", () => {
    const times = arrivalTimesMs(100, 10, 1, 7);
    expect(times).toHaveLength(100);
    expect(times.at(-1)).toBeCloseTo(10_000, 6);
    expect(times).toEqual(arrivalTimesMs(100, 10, 1, 7));
    expect(times).not.toEqual(arrivalTimesMs(100, 10, 1, 8));
    for (let i = 1; i < times.length; i++) expect(times[i]).toBeGreaterThanOrEqual(times[i - 1] ?? 0);
  });

  it("Poisson gaps at burstiness 1 (their spread is about their mean), even ones at infinite burstiness", () => {
    const times = arrivalTimesMs(4000, 100, 1, 3);
    const gaps = times.map((time, i) => time - (times[i - 1] ?? 0));
    const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
    const sd = Math.sqrt(gaps.reduce((a, b) => a + (b - mean) ** 2, 0) / gaps.length);
    expect(sd / mean).toBeGreaterThan(0.9);
    expect(sd / mean).toBeLessThan(1.1);
    expect(arrivalTimesMs(4, 2, Number.POSITIVE_INFINITY)).toEqual([500, 1000, 1500, 2000]);
    expect(arrivalTimesMs(3, Number.POSITIVE_INFINITY)).toEqual([0, 0, 0]);
  });
});

describe("parseSlo", () => {
  it("reads metric=time pairs with units", () => {
    expect(parseSlo("ttft=500ms,tpot=50ms,e2el=2s")).toEqual({ ttftMs: 500, tpotMs: 50, e2elMs: 2000 });
  });

  it.each(["ttft=500", "ttfb=1s", "ttft=1s,ttft=2s", "ttft=0ms", "", "tpot=-5ms"])(
    "refuses %j, naming the rule",
    (text) => {
      expect(() => parseSlo(text)).toThrow(ServeConfigError);
      expect(() => parseSlo(text)).toThrow(/slo: /);
    },
  );
});

describe("capacityFromSweep", () => {
  const point = (load: number, share: number, rps: number): SweepPoint => ({
    load,
    metrics: {
      ...computeBenchMetrics([], 1),
      requestThroughput: rps,
      goodput: { requestsPerSecond: rps * share, share, good: 0 },
    },
  });

  it("finds the last load within the SLOs and sizes the fleet with the headroom stated", () => {
    const answer = capacityFromSweep([point(8, 0.5, 9), point(1, 1, 1), point(2, 1, 2), point(4, 0.97, 4)], {
      targetRps: 30,
    });
    expect(answer).toMatchObject({ highestLoad: 4, firstFailingLoad: 8, attainment: 0.95, headroom: 0.2 });
    expect(answer.requestsPerSecond).toBeCloseTo(3.88, 10);
    // 30 / (3.88 × 0.8) = 9.66: 10 instances
    expect(answer.instances).toBe(10);
  });

  it("says so when even the lowest load misses the SLOs", () => {
    expect(capacityFromSweep([point(1, 0.2, 1)], { targetRps: 5 })).toMatchObject({
      highestLoad: null,
      instances: null,
      firstFailingLoad: 1,
    });
  });
});

describe("latencyChartSvg", () => {
  it("draws one line per series over the loads, with the load's name escaped", () => {
    const points = [1, 2, 4].map((load) => ({
      load,
      metrics: computeBenchMetrics([record({ ttftMs: load * 10, latencyMs: load * 100 })], 1),
    }));
    const svg = latencyChartSvg(points, "concurrency <callers>");
    expect(svg.match(/<polyline /g)).toHaveLength(4);
    expect(svg).toContain("concurrency &lt;callers&gt;");
    expect(svg.startsWith("<svg ")).toBe(true);
  });

  it("leaves out a level with no completed request, and draws an infinite rate at the right edge", () => {
    const failedOnly = computeBenchMetrics([record({ ok: false, failure: "http-500" })], 1);
    const points = [
      { load: 1, metrics: computeBenchMetrics([record({ ttftMs: 10, latencyMs: 100 })], 1) },
      { load: 4, metrics: failedOnly },
      { load: Number.POSITIVE_INFINITY, metrics: computeBenchMetrics([record({ latencyMs: 300 })], 1) },
    ];
    const svg = latencyChartSvg(points, "request rate (req/s)");
    expect(svg).not.toMatch(/NaN|Infinity/);
    expect(svg).toContain(">inf</text>");
    // Two points per series: rate 1 and inf; the rate-4 level measured nothing.
    for (const line of svg.match(/points="[^"]*"/g) ?? []) expect(line.split(" ")).toHaveLength(2);
    // The infinite rate sits at the plot's right edge (640 - 160); the finite loads share the first 85%
    // of the 416 px: rate 1 of at most 4 at 64 + 416 × 0.85 / 4.
    expect(svg).toMatch(/points="152\.4,[\d.]+ 480\.0,[\d.]+"/);
  });
});
