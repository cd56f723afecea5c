import { VllmMetricsPage } from "@finetune-studio/testing";
import { describe, expect, it } from "vitest";
import { decideScale, type FleetSample, type ScalePolicy } from "./decide.js";
import { keepSamples, MAX_KEPT_SAMPLES, readInstanceSignals } from "./signals.js";

// A V0-engine page (vLLM before 0.9) as servers of that line wrote it: prometheus_client's own collectors
// first, then the vllm: gauges labelled by model_name only (no engine label), the KV usage under its old
// name, and the swapped-requests and CPU-cache gauges V1 dropped.
const V0_PAGE = `# HELP python_gc_objects_collected_total Objects collected during gc
# TYPE python_gc_objects_collected_total counter
python_gc_objects_collected_total{generation="0"} 9321.0
# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.
# TYPE process_start_time_seconds gauge
process_start_time_seconds 1.74262400557e+09
# HELP vllm:num_requests_running Number of requests currently running on GPU.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{model_name="acme/support"} 7.0
# HELP vllm:num_requests_swapped Number of requests swapped to CPU.
# TYPE vllm:num_requests_swapped gauge
vllm:num_requests_swapped{model_name="acme/support"} 0.0
# HELP vllm:num_requests_waiting Number of requests waiting to be processed.
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{model_name="acme/support"} 3.0
# HELP vllm:gpu_cache_usage_perc GPU KV-cache usage. 1 means 100 percent usage.
# TYPE vllm:gpu_cache_usage_perc gauge
vllm:gpu_cache_usage_perc{model_name="acme/support"} 0.4375
# HELP vllm:cpu_cache_usage_perc CPU KV-cache usage. 1 means 100 percent usage.
# TYPE vllm:cpu_cache_usage_perc gauge
vllm:cpu_cache_usage_perc{model_name="acme/support"} 0.0
`;

// Before its first stats log, a V0 server's page declares the gauges (HELP and TYPE) with no sample yet.
const DECLARED_ONLY = `# HELP vllm:num_requests_running Number of requests currently running on GPU.
# TYPE vllm:num_requests_running gauge
# HELP vllm:num_requests_waiting Number of requests waiting to be processed.
# TYPE vllm:num_requests_waiting gauge
# HELP vllm:num_preemptions_total Cumulative number of preemption from the engine.
# TYPE vllm:num_preemptions_total counter
vllm:num_preemptions_total{model_name="acme/support"} 0.0
`;

describe("readInstanceSignals", () => {
  it("reads a V1 page: waiting, running and kv_cache_usage_perc", () => {
    const page = new VllmMetricsPage({ models: ["acme/support"] });
    page.setScheduler({ running: 2, waiting: 5, kvCacheUsage: 0.62 });
    expect(readInstanceSignals(page.render())).toEqual({
      signals: { waiting: 5, running: 2, kvUsage: 0.62 },
    });
  });

  it("reads a V0 page: gpu_cache_usage_perc, no engine label", () => {
    expect(readInstanceSignals(V0_PAGE)).toEqual({ signals: { waiting: 3, running: 7, kvUsage: 0.4375 } });
  });

  it("reads the deprecated KV name a V1 server before 0.9 wrote", () => {
    const page = new VllmMetricsPage({ models: ["m"], deprecatedNames: true });
    page.setScheduler({ running: 1, waiting: 0, kvCacheUsage: 0.25 });
    expect(readInstanceSignals(page.render()).signals).toEqual({ waiting: 0, running: 1, kvUsage: 0.25 });
  });

  it("sums waiting and running over the engines of a data-parallel server, and takes the fullest KV", () => {
    const page = new VllmMetricsPage({ models: ["m"], engines: 2 });
    page.setScheduler({ running: 4, waiting: 6, kvCacheUsage: 0.9 }, "m", 0);
    page.setScheduler({ running: 3, waiting: 1, kvCacheUsage: 0.2 }, "m", 1);
    expect(readInstanceSignals(page.render()).signals).toEqual({ waiting: 7, running: 7, kvUsage: 0.9 });
  });

  it("counts only the model asked for, and says when the page has no series for it", () => {
    const page = new VllmMetricsPage({ models: ["ours", "theirs"] });
    page.setScheduler({ running: 1, waiting: 2 }, "ours");
    page.setScheduler({ running: 5, waiting: 9 }, "theirs");
    expect(readInstanceSignals(page.render(), "ours").signals).toMatchObject({ waiting: 2, running: 1 });
    expect(readInstanceSignals(page.render()).signals).toMatchObject({ waiting: 11, running: 6 });
    expect(readInstanceSignals(page.render(), "other")).toEqual({
      signals: null,
      reason: 'the page has no series for model_name="other"',
    });
  });

  it.each([
    ["gauges declared with no sample yet", DECLARED_ONLY, /lacks vllm:num_requests_waiting/],
    ["a page without vLLM's metrics", "process_open_fds 45.0\n", /no vLLM metrics/],
    ["an HTML page", "<html><body>Not Found</body></html>", /not a metric sample/],
    [
      "a negative queue",
      'vllm:num_requests_waiting{model_name="m"} -3.0\nvllm:num_requests_running{model_name="m"} 1.0\n',
      /not counts \(waiting -3, running 1\)/,
    ],
    [
      "an infinite queue",
      'vllm:num_requests_waiting{model_name="m"} +Inf\nvllm:num_requests_running{model_name="m"} 1.0\n',
      /not counts/,
    ],
  ])("does not know from %s, and says why", (_name, text, reason) => {
    const reading = readInstanceSignals(text);
    expect(reading.signals).toBeNull();
    if (reading.signals === null) expect(reading.reason).toMatch(reason);
  });

  it("keeps the queue but not a KV usage outside 0..1, or one the page lacks", () => {
    const queue =
      'vllm:num_requests_waiting{model_name="m"} 2.0\nvllm:num_requests_running{model_name="m"} 1.0\n';
    expect(readInstanceSignals(`${queue}vllm:kv_cache_usage_perc{model_name="m"} 1.5\n`).signals).toEqual({
      waiting: 2,
      running: 1,
      kvUsage: null,
    });
    expect(readInstanceSignals(queue).signals).toEqual({ waiting: 2, running: 1, kvUsage: null });
  });
});

describe("keepSamples", () => {
  const policy: ScalePolicy = {
    min: 1,
    max: 4,
    queue: 5,
    upWindowMs: 10_000,
    downAfterMs: 15_000,
    batch: 2,
  };
  const quiet = (timeMs: number): FleetSample => ({
    timeMs,
    serving: [
      { waiting: 0, running: 0, kvUsage: 0.1 },
      { waiting: 0, running: 0, kvUsage: 0.1 },
    ],
  });

  it("drops what is older than the longest window, but one sample at or before its start", () => {
    let kept: FleetSample[] = [];
    for (let timeMs = 0; timeMs <= 60_000; timeMs += 2_000) kept = keepSamples(kept, quiet(timeMs), policy);
    // The down window (15 s) is the longer: from 45 s on, plus the last before it (44 s).
    expect(kept.map((sample) => sample.timeMs)).toEqual([
      44_000, 46_000, 48_000, 50_000, 52_000, 54_000, 56_000, 58_000, 60_000,
    ]);
  });

  it("keeps enough for decideScale to see the whole window, sample after sample", () => {
    let kept: FleetSample[] = [];
    const counts = { serving: 2, arriving: 0, draining: 0 };
    for (let timeMs = 0; timeMs <= 60_000; timeMs += 3_000) kept = keepSamples(kept, quiet(timeMs), policy);
    expect(decideScale(kept, policy, counts, 60_000).action).toBe("down");
    // Without the sample before the window's start, the window would not be known to be covered.
    expect(decideScale(kept.slice(1), policy, counts, 60_000).action).toBe("hold");
  });

  it("starts again when the clock goes back, rather than keep samples out of order", () => {
    const kept = [quiet(10_000), quiet(12_000)];
    expect(keepSamples(kept, quiet(5_000), policy)).toEqual([quiet(5_000)]);
  });

  it("holds at most MAX_KEPT_SAMPLES, whatever the clock does", () => {
    let kept: FleetSample[] = [];
    for (let index = 0; index < MAX_KEPT_SAMPLES + 10; index++)
      kept = keepSamples(kept, quiet(1_000), policy);
    expect(kept).toHaveLength(MAX_KEPT_SAMPLES);
  });
});
