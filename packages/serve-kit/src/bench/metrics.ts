// The serving metrics of a load test, defined as vLLM's own benchmark defines them, so the numbers compare:
// `calculate_metrics` in vllm/benchmarks/serve.py (formerly benchmarks/benchmark_serving.py), read at vLLM
// commit 009e6d4a1cd6. Times are in milliseconds, as vLLM prints them; percentiles interpolate linearly
// between ranks, as numpy.percentile does by default. One departure: vLLM prints 0 for an empty list
// (`np.mean(x or 0)`), which reads as a measured 0 ms; here a latency nothing measured is null.

/** What one request measured; token counts come from the server's `usage`, never from the text. */
export interface BenchRequestRecord {
  /** Whether the request completed (vLLM's `output.success`). */
  ok: boolean;
  /** Why it failed, as a short kind (`http-503`, `timeout`, `connection`, `stream-error`, ...). */
  failure?: string;
  /** Why it failed, in words (vLLM's `output.error`): one line, bounded, without secrets. */
  error?: string;
  /** When it was sent, relative to the run's start. */
  startMs: number;
  /** Time to the first content token (vLLM's `ttft`). */
  ttftMs: number;
  /** Each gap between consecutive content chunks after the first (vLLM's `itl`). */
  itlMs: readonly number[];
  /** From sending to the last byte (vLLM's `latency`). */
  latencyMs: number;
  /** `usage.prompt_tokens`. */
  promptTokens: number;
  /** `usage.completion_tokens`. */
  outputTokens: number;
}

/** Mean, median and the tail of one latency, in milliseconds. */
export interface LatencySummary {
  mean: number;
  median: number;
  p90: number;
  p95: number;
  p99: number;
}

/** A service level objective per request, in milliseconds: a request is good when it meets every one given. */
export interface BenchSlo {
  ttftMs?: number;
  tpotMs?: number;
  e2elMs?: number;
}

export interface BenchMetrics {
  completed: number;
  failed: number;
  /** Failed requests by kind. */
  failures: Readonly<Record<string, number>>;
  /** The most frequent reasons (`error`) failed requests gave, most frequent first, at most `TOP_REASONS`. */
  failureReasons: readonly { reason: string; count: number }[];
  durationSeconds: number;
  totalInputTokens: number;
  totalOutputTokens: number;
  /** Completed requests per second. */
  requestThroughput: number;
  outputThroughput: number;
  totalTokenThroughput: number;
  /** Each latency is null when no completed request measured it: no figure without a measurement. */
  ttftMs: LatencySummary | null;
  /** Time per output token after the first: (latency - ttft) / (output tokens - 1), requests with more than one. */
  tpotMs: LatencySummary | null;
  /** Every gap between chunks, of every request. */
  itlMs: LatencySummary | null;
  e2elMs: LatencySummary | null;
  /** The most requests open at once (vLLM's `max_concurrent_requests`: a sweep over [start, end) intervals). */
  peakConcurrency: number;
  /** Requests that met every SLO given, per second, and their share of all requests; null without SLOs. */
  goodput: { requestsPerSecond: number; share: number; good: number } | null;
}

/** `numpy.percentile(values, p)` with linear interpolation (values need not be sorted). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  const below = sorted[low] ?? 0;
  return below + ((sorted[high] ?? below) - below) * (rank - low);
}

function summarize(values: readonly number[]): LatencySummary | null {
  if (values.length === 0) return null;
  let total = 0;
  for (const value of values) total += value;
  return {
    mean: total / values.length,
    median: percentile(values, 50),
    p90: percentile(values, 90),
    p95: percentile(values, 95),
    p99: percentile(values, 99),
  };
}

/** TPOT as vLLM computes it, 0 for a request with one output token or none (it then counts for goodput). */
export function timePerOutputToken(record: BenchRequestRecord): number {
  return record.outputTokens > 1 ? (record.latencyMs - record.ttftMs) / (record.outputTokens - 1) : 0;
}

/** The metrics of a run that lasted `durationSeconds` (from the first request sent to the last answer). */
export function computeBenchMetrics(
  records: readonly BenchRequestRecord[],
  durationSeconds: number,
  slo?: BenchSlo,
): BenchMetrics {
  const done = records.filter((record) => record.ok);
  const failed = records.filter((record) => !record.ok);
  const failures = countBy(failed.map((record) => record.failure ?? "error"));
  const totalInputTokens = done.reduce((sum, record) => sum + record.promptTokens, 0);
  const totalOutputTokens = done.reduce((sum, record) => sum + record.outputTokens, 0);
  const seconds = durationSeconds > 0 ? durationSeconds : Number.POSITIVE_INFINITY;
  const tpots = done.filter((record) => record.outputTokens > 1).map(timePerOutputToken);
  return {
    completed: done.length,
    failed: failed.length,
    failures: Object.fromEntries(failures),
    failureReasons: [...countBy(failed.map((record) => record.error ?? record.failure ?? "error"))]
      .sort((a, b) => b[1] - a[1])
      .slice(0, TOP_REASONS)
      .map(([reason, count]) => ({ reason, count })),
    durationSeconds,
    totalInputTokens,
    totalOutputTokens,
    requestThroughput: done.length / seconds,
    outputThroughput: totalOutputTokens / seconds,
    totalTokenThroughput: (totalInputTokens + totalOutputTokens) / seconds,
    ttftMs: summarize(done.map((record) => record.ttftMs)),
    tpotMs: summarize(tpots),
    itlMs: summarize(done.flatMap((record) => record.itlMs)),
    e2elMs: summarize(done.map((record) => record.latencyMs)),
    peakConcurrency: peakConcurrency(done),
    goodput:
      slo === undefined || Object.keys(slo).length === 0 ? null : goodputOf(records, done, seconds, slo),
  };
}

/** How many failure reasons a summary lists (vLLM prints the first 10 errors; these are counted). */
export const TOP_REASONS = 5;

/** Each distinct value and how often it occurs, in order of first occurrence. */
function countBy(values: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
}

/** Requests open at once at the busiest moment; an end and a start at the same instant do not overlap. */
function peakConcurrency(done: readonly BenchRequestRecord[]): number {
  const events = done.flatMap((record) => [
    [record.startMs, 1],
    [record.startMs + record.latencyMs, -1],
  ]);
  events.sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0) || (a[1] ?? 0) - (b[1] ?? 0));
  let open = 0;
  let peak = 0;
  for (const [, delta] of events) {
    open += delta ?? 0;
    peak = Math.max(peak, open);
  }
  return peak;
}

/** vLLM's goodput: completed requests whose TTFT, TPOT and E2E latency each meet the SLO given for it. */
function goodputOf(
  records: readonly BenchRequestRecord[],
  done: readonly BenchRequestRecord[],
  seconds: number,
  slo: BenchSlo,
) {
  const good = done.filter(
    (record) =>
      (slo.ttftMs === undefined || record.ttftMs <= slo.ttftMs) &&
      (slo.tpotMs === undefined || timePerOutputToken(record) <= slo.tpotMs) &&
      (slo.e2elMs === undefined || record.latencyMs <= slo.e2elMs),
  ).length;
  return { requestsPerSecond: good / seconds, share: records.length === 0 ? 0 : good / records.length, good };
}
