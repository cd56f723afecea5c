import { VllmMetricsPage } from "@finetune-studio/testing";
import { describe, expect, it } from "vitest";
import { parseExposition } from "./exposition.js";
import { histogramQuantile } from "./histogram-quantile.js";
import { sloTargets } from "./slo-rules.js";
import { type ReadableVllmMetrics, summarizeVllmMetrics } from "./vllm-summary.js";

function readable(summary: ReturnType<typeof summarizeVllmMetrics>): ReadableVllmMetrics {
  if (!summary.readable) throw new Error(`unreadable: ${summary.reason}`);
  return summary;
}

const request = (ttft: number, e2e: number, extra: object = {}) => ({
  promptTokens: 100,
  generationTokens: 40,
  timeToFirstTokenSeconds: ttft,
  e2eLatencySeconds: e2e,
  ...extra,
});

describe("parseExposition", () => {
  it("reads names, escaped labels, special values and timestamps", () => {
    const parsed = parseExposition(
      [
        "# HELP a_total Things.",
        "# TYPE a_total counter",
        'a_total{x="q\\"uote",y="back\\\\slash",z="new\\nline"} 3.0 1700000000000',
        "b +Inf",
        "c{} -Inf",
        "d NaN",
        'e{le="0.5",} 1e-05',
        "",
      ].join("\n"),
    );
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.samples.map((sample) => [sample.name, sample.labels, sample.value])).toEqual([
      ["a_total", { x: 'q"uote', y: "back\\slash", z: "new\nline" }, 3],
      ["b", {}, Number.POSITIVE_INFINITY],
      ["c", {}, Number.NEGATIVE_INFINITY],
      ["d", {}, Number.NaN],
      ["e", { le: "0.5" }, 0.00001],
    ]);
  });

  it.each([
    [
      "an HTML page",
      "<html><body>Not Found</body></html>",
      /line 1 is not a metric sample \(no metric name\)/,
    ],
    ["JSON", '{"object":"error"}', /no metric name/],
    ["a value that is no number", "vllm:x 12abc", /the value is not a number/],
    ["an unclosed label", 'vllm:x{model_name="a 1', /no closing quote/],
    ["an unknown escape", 'vllm:x{a="\\t"} 1', /unknown escape/],
    ["a repeated label", 'vllm:x{a="1",a="2"} 1', /label a repeats/],
    ["three fields", "vllm:x 1 2 3", /expected a value/],
    ["a missing value", "vllm:x", /expected a value/],
  ])("refuses %s with the line and the rule", (_name, text, reason) => {
    const parsed = parseExposition(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason).toMatch(reason);
  });

  it("bounds the text and the number of samples", () => {
    expect(parseExposition("a 1\n".repeat(10), { maxChars: 20 })).toEqual({
      ok: false,
      reason: "the metrics page is larger than 20 characters",
    });
    expect(parseExposition("a 1\n".repeat(10), { maxSamples: 5 })).toEqual({
      ok: false,
      reason: "the metrics page holds more than 5 samples",
    });
  });
});

describe("histogramQuantile", () => {
  const buckets = [
    { le: 0.1, count: 10 },
    { le: 0.5, count: 30 },
    { le: 1, count: 40 },
    { le: Number.POSITIVE_INFINITY, count: 40 },
  ];

  it.each([
    ["the median, interpolated inside (0.1, 0.5]", 0.5, 0.1 + 0.4 * (10 / 20)],
    ["p95, inside (0.5, 1]", 0.95, 0.5 + 0.5 * (8 / 10)],
    ["a rank in the first bucket, which starts at 0", 0.1, 0.1 * (4 / 10)],
    ["q = 0", 0, 0],
    ["q below 0", -1, Number.NEGATIVE_INFINITY],
    ["q above 1", 2, Number.POSITIVE_INFINITY],
  ])("gives %s as Prometheus does", (_name, q, want) => {
    expect(histogramQuantile(q, buckets)).toBeCloseTo(want, 12);
  });

  it("answers the highest finite bound for a rank in the +Inf bucket", () => {
    expect(
      histogramQuantile(0.99, [
        { le: 1, count: 1 },
        { le: Number.POSITIVE_INFINITY, count: 10 },
      ]),
    ).toBe(1);
  });

  it("has no answer without observations or without a +Inf bucket", () => {
    expect(
      histogramQuantile(0.5, [
        { le: 1, count: 0 },
        { le: Infinity, count: 0 },
      ]),
    ).toBeUndefined();
    expect(
      histogramQuantile(0.5, [
        { le: 1, count: 3 },
        { le: 2, count: 3 },
      ]),
    ).toBeUndefined();
  });
});

describe("summarizeVllmMetrics", () => {
  it("reads the gauges, the rates between two scrapes and the percentiles of the requests in between", () => {
    const page = new VllmMetricsPage({ models: ["support"] });
    page.recordRequest(request(5, 50)); // before the first scrape: outside the window
    const earlier = { text: page.render(), timeMs: 10_000 };
    for (let i = 0; i < 10; i++)
      page.recordRequest(request(0.07, 1.2, { promptTokens: 30, generationTokens: 12 }));
    page.preempt(2);
    page.setScheduler({ running: 3, waiting: 7, kvCacheUsage: 0.42 });
    const summary = readable(summarizeVllmMetrics({ text: page.render(), timeMs: 12_000 }, earlier));

    expect(summary).toMatchObject({
      models: ["support"],
      requestsRunning: 3,
      requestsWaiting: 7,
      kvCacheUsage: 0.42,
      promptTokensPerSecond: 150, // 10 × 30 tokens over 2 s
      generationTokensPerSecond: 60,
      preemptions: 2,
      finishedRequests: { abort: 0, error: 0, length: 0, repetition: 0, stop: 11 },
      intervalSeconds: 2,
      restarted: false,
      runningAdapters: [],
      maxLoras: null,
    });
    // All ten in (0.06, 0.08] and (1.0, 1.5]: the percentiles interpolate inside those bounds.
    expect(summary.timeToFirstToken).toMatchObject({ requests: 10, window: "between-scrapes" });
    expect(summary.timeToFirstToken?.p50).toBeCloseTo(0.06 + 0.02 * 0.5, 12);
    expect(summary.timeToFirstToken?.p95).toBeCloseTo(0.06 + 0.02 * 0.95, 12);
    expect(summary.e2eLatency?.p50).toBeCloseTo(1.0 + 0.5 * 0.5, 12);
    expect(summary.e2eLatency?.p95).toBeCloseTo(1.0 + 0.5 * 0.95, 12);
  });

  it("with one scrape gives no rates and percentiles since the start", () => {
    const page = new VllmMetricsPage();
    page.recordRequest(request(0.3, 2.2));
    const summary = readable(summarizeVllmMetrics({ text: page.render(), timeMs: 0 }));
    expect(summary.promptTokensPerSecond).toBeNull();
    expect(summary.intervalSeconds).toBeNull();
    expect(summary.timeToFirstToken).toMatchObject({ requests: 1, window: "since-start" });
    expect(summary.timeToFirstToken?.p50).toBeGreaterThan(0.25);
    expect(summary.timeToFirstToken?.p50).toBeLessThanOrEqual(0.5);
  });

  it("keeps each model apart and adds them up for the instance", () => {
    const page = new VllmMetricsPage({ models: ["base", "other"], engines: 2 });
    const earlier = { text: page.render(), timeMs: 0 };
    page.setScheduler({ running: 1, waiting: 2, kvCacheUsage: 0.2 }, "base", 0);
    page.setScheduler({ running: 4, waiting: 0, kvCacheUsage: 0.9 }, "base", 1);
    page.setScheduler({ running: 5, waiting: 1, kvCacheUsage: 0.5 }, "other", 0);
    page.recordRequest(request(0.03, 0.4, { model: "base", promptTokens: 10, generationTokens: 0 }));
    page.recordRequest(request(3, 6, { model: "other", promptTokens: 30, generationTokens: 0 }));
    const summary = readable(summarizeVllmMetrics({ text: page.render(), timeMs: 1000 }, earlier));

    expect(summary.models).toEqual(["base", "other"]);
    expect(summary).toMatchObject({ requestsRunning: 10, requestsWaiting: 3, kvCacheUsage: 0.9 });
    expect(summary.promptTokensPerSecond).toBe(40);
    expect(summary.perModel.base).toMatchObject({
      requestsRunning: 5,
      kvCacheUsage: 0.9,
      promptTokensPerSecond: 10,
    });
    expect(summary.perModel.other).toMatchObject({
      requestsRunning: 5,
      kvCacheUsage: 0.5,
      promptTokensPerSecond: 30,
    });
    expect(summary.perModel.base?.timeToFirstToken?.p95).toBeLessThanOrEqual(0.04);
    expect(summary.perModel.other?.timeToFirstToken?.p95).toBeGreaterThan(2.5);
  });

  it("counts from the restart when the counters went down", () => {
    const page = new VllmMetricsPage();
    for (let i = 0; i < 5; i++) page.recordRequest(request(0.1, 1, { promptTokens: 1000 }));
    const earlier = { text: page.render(), timeMs: 0 };
    page.restart();
    page.recordRequest(request(0.1, 1, { promptTokens: 40 }));
    const summary = readable(summarizeVllmMetrics({ text: page.render(), timeMs: 4000 }, earlier));
    expect(summary.restarted).toBe(true);
    expect(summary.promptTokensPerSecond).toBe(10);
    expect(summary.e2eLatency?.requests).toBe(1);
  });

  it("reads the KV-cache gauge under its deprecated name from older servers", () => {
    const page = new VllmMetricsPage({ deprecatedNames: true });
    page.setScheduler({ kvCacheUsage: 0.75 });
    expect(page.render()).toContain("vllm:gpu_cache_usage_perc{");
    expect(page.render()).not.toContain("vllm:kv_cache_usage_perc");
    expect(readable(summarizeVllmMetrics({ text: page.render(), timeMs: 0 })).kvCacheUsage).toBe(0.75);
  });

  it("prefers the current KV-cache name when a server sends both", () => {
    const text = [
      'vllm:gpu_cache_usage_perc{engine="0",model_name="m"} 0.1',
      'vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.6',
    ].join("\n");
    expect(readable(summarizeVllmMetrics({ text, timeMs: 0 })).kvCacheUsage).toBe(0.6);
  });

  it("takes the running adapters from the newest vllm:lora_requests_info series", () => {
    const page = new VllmMetricsPage({ maxLoras: 4 });
    page.setLoraAdapters(["old"], [], 1_700_000_000.5);
    page.setLoraAdapters(["support", "sales"], ["billing"], 1_700_000_100.25);
    page.setLoraAdapters([], [], 1_700_000_050);
    const summary = readable(summarizeVllmMetrics({ text: page.render(), timeMs: 0 }));
    expect(summary).toMatchObject({
      runningAdapters: ["support", "sales"],
      waitingAdapters: ["billing"],
      maxLoras: 4,
    });
  });

  it.each([
    ["garbage", "\u0000\u0001binary junk", /not a metric sample/],
    ["an empty page", "", /no vLLM metrics/],
    ["another program's metrics", "process_cpu_seconds_total 12.5\nup 1\n", /no vLLM metrics/],
    ["a page past the limit", "vllm:num_requests_running 1\n".repeat(100), /larger than 100 characters/],
  ])("calls %s unreadable with the reason, without throwing", (_name, text, reason) => {
    const summary = summarizeVllmMetrics({ text, timeMs: 0 }, undefined, { maxChars: 100 });
    expect(summary.readable).toBe(false);
    if (!summary.readable) expect(summary.reason).toMatch(reason);
  });

  it("ignores an unreadable earlier scrape rather than failing the current one", () => {
    const page = new VllmMetricsPage();
    const summary = readable(
      summarizeVllmMetrics({ text: page.render(), timeMs: 1000 }, { text: "<html>", timeMs: 0 }),
    );
    expect(summary.promptTokensPerSecond).toBeNull();
  });

  it("renders vLLM's own text: sorted labels, Python floats, counters with _total, no _created", () => {
    const page = new VllmMetricsPage({ models: ["m"] });
    page.recordRequest(request(0.00001, 0.2));
    const text = page.render();
    expect(text).toContain("# TYPE vllm:prompt_tokens_total counter\n");
    expect(text).toContain('vllm:prompt_tokens_total{engine="0",model_name="m"} 100.0\n');
    expect(text).toContain('vllm:time_to_first_token_seconds_sum{engine="0",model_name="m"} 1e-05\n');
    expect(text).toContain(
      'vllm:e2e_request_latency_seconds_bucket{engine="0",le="0.3",model_name="m"} 1.0\n',
    );
    expect(text).toContain(
      'vllm:e2e_request_latency_seconds_bucket{engine="0",le="+Inf",model_name="m"} 1.0\n',
    );
    expect(text).toContain(
      'vllm:request_success_total{engine="0",finished_reason="stop",model_name="m"} 1.0\n',
    );
    expect(text).not.toContain("_created");
  });
});

describe("summarizeVllmMetrics: the prefix cache's hit rate", () => {
  const looked = (queries: number, hits: number) =>
    request(0.1, 1, { prefixCacheQueries: queries, prefixCacheHits: hits });

  it.each([
    ["current names", false],
    ["vLLM 0.8's gpu_ names", true],
  ])("is hits over lookups (tokens) between the two scrapes: %s", (_, deprecatedNames) => {
    const page = new VllmMetricsPage({ deprecatedNames });
    page.recordRequest(looked(1000, 900)); // before the first scrape: outside the window
    const earlier = { text: page.render(), timeMs: 0 };
    for (let i = 0; i < 4; i++) page.recordRequest(looked(100, 25));
    const summary = readable(summarizeVllmMetrics({ text: page.render(), timeMs: 2_000 }, earlier));
    expect(summary.prefixCacheHitRate).toEqual({
      share: 0.25,
      window: "between-scrapes",
      tokens: 400,
    });
  });

  it("counts since the start with one scrape, or with no lookup in between", () => {
    const page = new VllmMetricsPage();
    page.recordRequest(looked(1000, 900));
    page.recordRequest(looked(1000, 100));
    const once = { text: page.render(), timeMs: 0 };
    expect(readable(summarizeVllmMetrics(once)).prefixCacheHitRate).toEqual({
      share: 0.5,
      window: "since-start",
      tokens: 2000,
    });
    const idle = readable(summarizeVllmMetrics({ text: page.render(), timeMs: 2_000 }, once));
    expect(idle.prefixCacheHitRate).toEqual({ share: 0.5, window: "since-start", tokens: 2000 });
  });

  it("reads the V0 engine's gauge when the page has no counters, and says nothing before any lookup", () => {
    const v0 =
      'vllm:num_requests_running{model_name="m"} 0.0\nvllm:gpu_prefix_cache_hit_rate{model_name="m"} 0.375\n';
    expect(readable(summarizeVllmMetrics({ text: v0, timeMs: 0 })).prefixCacheHitRate).toEqual({
      share: 0.375,
      window: "since-start",
      tokens: null,
    });
    const fresh = new VllmMetricsPage();
    expect(readable(summarizeVllmMetrics({ text: fresh.render(), timeMs: 0 })).prefixCacheHitRate).toBeNull();
  });
});

describe("summarizeVllmMetrics with SLO targets", () => {
  const targets = sloTargets("ttft=500ms,tpot=50ms,e2el=10s");

  it.each([
    ["V1", false],
    ["V0 (old names)", true],
  ])(
    "counts the %s requests finished between the scrapes within each target, as sloRules does",
    (_engine, deprecatedNames) => {
      const page = new VllmMetricsPage({ deprecatedNames });
      page.recordRequest(request(5, 50, { timePerOutputTokenSeconds: 0.3 })); // before: outside the window
      const earlier = { text: page.render(), timeMs: 0 };
      for (let i = 0; i < 8; i++) page.recordRequest(request(0.2, 2, { timePerOutputTokenSeconds: 0.04 }));
      // A TTFT of 0.7 s misses 500 ms; a TPOT of 0.06 s misses 50 ms; an e2el of 12 s misses 10 s.
      page.recordRequest(request(0.7, 12, { timePerOutputTokenSeconds: 0.06 }));
      page.recordRequest(request(0.45, 3, { timePerOutputTokenSeconds: 0.05 }));
      const later = { text: page.render(), timeMs: 2_000 };
      const summary = readable(summarizeVllmMetrics(later, earlier, { slo: targets }));
      expect(summary.sloAttainment).toEqual([
        { slo: "ttft", targetMs: 500, countedUpToSeconds: 0.5, requests: 10, within: 9, share: 0.9 },
        { slo: "tpot", targetMs: 50, countedUpToSeconds: 0.05, requests: 10, within: 9, share: 0.9 },
        { slo: "e2el", targetMs: 10_000, countedUpToSeconds: 10, requests: 10, within: 9, share: 0.9 },
      ]);
      // Without targets the summary has no such field; with one scrape there is no window to count in.
      expect(readable(summarizeVllmMetrics(later, earlier))).not.toHaveProperty("sloAttainment");
      expect(readable(summarizeVllmMetrics(later, undefined, { slo: targets })).sloAttainment).toBeNull();
    },
  );

  it("counts a target between buckets from the bucket below it, and has no share without requests", () => {
    const page = new VllmMetricsPage();
    const earlier = { text: page.render(), timeMs: 0 };
    // 0.45 s is within 600 ms, but 600 ms lies between the 0.5 s and 0.75 s buckets: counted up to 0.5 s.
    page.recordRequest(request(0.55, 2));
    page.recordRequest(request(0.45, 2));
    const later = { text: page.render(), timeMs: 1_000 };
    const [ttft] =
      readable(summarizeVllmMetrics(later, earlier, { slo: sloTargets("ttft=600ms") })).sloAttainment ?? [];
    expect(ttft).toEqual({
      slo: "ttft",
      targetMs: 600,
      countedUpToSeconds: 0.5,
      requests: 2,
      within: 1,
      share: 0.5,
    });
    const idle = readable(summarizeVllmMetrics(later, later, { slo: sloTargets("ttft=600ms") }));
    expect(idle.sloAttainment?.[0]).toMatchObject({ requests: 0, within: 0, share: null });
  });
});
