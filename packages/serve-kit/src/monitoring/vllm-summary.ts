import { type ExpositionLimits, type MetricSample, parseExposition } from "./exposition.js";
import { type HistogramBucket, histogramQuantile } from "./histogram-quantile.js";
import { VLLM_METRICS } from "./vllm-metric-names.js";

/** The text of one `/metrics` answer and when it was read (milliseconds, any clock both scrapes share). */
export interface MetricsScrape {
  readonly text: string;
  readonly timeMs: number;
}

/** p50 and p95 from a histogram, in seconds, and how many requests they describe. */
export interface LatencyPercentiles {
  readonly p50: number;
  readonly p95: number;
  readonly requests: number;
  /** Requests finished between the two scrapes, or (with one scrape, or none in between) since the start. */
  readonly window: "between-scrapes" | "since-start";
}

/** The load of one instance, or of one model on it. `null` where the page does not say. */
export interface VllmLoad {
  readonly requestsRunning: number | null;
  readonly requestsWaiting: number | null;
  /** The fullest engine's KV-cache usage, 0..1. */
  readonly kvCacheUsage: number | null;
  /** Counter increase over the time between the two scrapes; null with one scrape. */
  readonly promptTokensPerSecond: number | null;
  readonly generationTokensPerSecond: number | null;
  readonly timeToFirstToken: LatencyPercentiles | null;
  readonly e2eLatency: LatencyPercentiles | null;
  /** Preemptions since the server started. */
  readonly preemptions: number | null;
  /** Finished requests since the server started, by vLLM's finished_reason (stop, length, abort, ...). */
  readonly finishedRequests: Readonly<Record<string, number>>;
}

export interface ReadableVllmMetrics extends VllmLoad {
  readonly readable: true;
  /** The model_name label values on the page. */
  readonly models: readonly string[];
  /** LoRA adapters in the running batch, and waiting, by vllm:lora_requests_info; empty without LoRA. */
  readonly runningAdapters: readonly string[];
  readonly waitingAdapters: readonly string[];
  readonly maxLoras: number | null;
  /** Seconds between the two scrapes; null with one. */
  readonly intervalSeconds: number | null;
  /** A counter went down between the scrapes: the server restarted, so rates count from its restart. */
  readonly restarted: boolean;
  /** The same figures for each model_name, for an instance whose page carries several. */
  readonly perModel: Readonly<Record<string, VllmLoad>>;
}

export interface UnreadableVllmMetrics {
  readonly readable: false;
  readonly reason: string;
}

export type VllmMetricsSummary = ReadableVllmMetrics | UnreadableVllmMetrics;

type Filter = (sample: MetricSample) => boolean;

/**
 * Summarises a vLLM instance from its `/metrics` page: `later` is the current scrape, `earlier` (optional)
 * one taken a moment before, from which token rates are counter increases over the time between them.
 * Garbage, a page that is not vLLM's, or one past the limits gives `{ readable: false, reason }`; it never
 * throws.
 */
export function summarizeVllmMetrics(
  later: MetricsScrape,
  earlier?: MetricsScrape,
  limits?: ExpositionLimits,
): VllmMetricsSummary {
  const current = parseExposition(later?.text, limits);
  if (!current.ok) return { readable: false, reason: current.reason };
  const samples = current.samples.filter((sample) => sample.name.startsWith("vllm:"));
  if (samples.length === 0) {
    return { readable: false, reason: "the page holds no vLLM metrics (is this a vLLM server?)" };
  }
  const previous = earlier === undefined ? undefined : parseExposition(earlier.text, limits);
  const before = previous?.ok ? previous.samples.filter((sample) => sample.name.startsWith("vllm:")) : [];
  const seconds = previous?.ok ? (later.timeMs - (earlier?.timeMs ?? 0)) / 1000 : Number.NaN;
  const interval = Number.isFinite(seconds) && seconds > 0 ? seconds : null;
  const reader = new LoadReader(samples, previous?.ok ? before : undefined, interval);

  const models = [...new Set(samples.map((sample) => sample.labels.model_name).filter(isString))].sort();
  const perModel: Record<string, VllmLoad> = {};
  for (const model of models) perModel[model] = reader.load((sample) => sample.labels.model_name === model);
  const adapters = loraAdapters(samples);
  return {
    readable: true,
    models,
    ...reader.load(() => true),
    ...adapters,
    intervalSeconds: interval,
    restarted: reader.restarted,
    perModel,
  };
}

class LoadReader {
  restarted = false;

  constructor(
    private readonly samples: readonly MetricSample[],
    private readonly before: readonly MetricSample[] | undefined,
    private readonly interval: number | null,
  ) {}

  load(filter: Filter): VllmLoad {
    const gauge = (names: readonly string[], combine: (values: number[]) => number) => {
      const values = this.pick(this.samples, names, "", filter).map((sample) => sample.value);
      return values.length === 0 ? null : combine(values);
    };
    const rate = (names: readonly string[]) => {
      if (this.interval === null) return null;
      const increase = this.increase(names, "", filter);
      return increase === null ? null : increase / this.interval;
    };
    const total = (names: readonly string[]) => gauge(names, sum);
    return {
      requestsRunning: gauge(VLLM_METRICS.requestsRunning, sum),
      requestsWaiting: gauge(VLLM_METRICS.requestsWaiting, sum),
      kvCacheUsage: gauge(VLLM_METRICS.kvCacheUsage, (values) => Math.max(...values)),
      promptTokensPerSecond: rate(VLLM_METRICS.promptTokens),
      generationTokensPerSecond: rate(VLLM_METRICS.generationTokens),
      timeToFirstToken: this.percentiles(VLLM_METRICS.timeToFirstToken, filter),
      e2eLatency: this.percentiles(VLLM_METRICS.e2eLatency, filter),
      preemptions: total(VLLM_METRICS.preemptions),
      finishedRequests: this.byReason(filter),
    };
  }

  /** The samples of the first name in `names` that the page has (current name before deprecated one). */
  private pick(
    samples: readonly MetricSample[],
    names: readonly string[],
    suffix: string,
    filter: Filter,
  ): MetricSample[] {
    for (const name of names) {
      const found = samples.filter((sample) => sample.name === name + suffix && filter(sample));
      if (found.length > 0) return found.filter((sample) => !Number.isNaN(sample.value));
    }
    return [];
  }

  /** Per-series increase between the scrapes, reset-aware as Prometheus' increase(), summed by `key`. */
  private increases(
    names: readonly string[],
    suffix: string,
    filter: Filter,
    key: (s: MetricSample) => string,
  ) {
    const earlier = new Map<string, number>();
    for (const sample of this.pick(this.before ?? [], names, suffix, filter)) {
      earlier.set(seriesKey(sample), sample.value);
    }
    const sums = new Map<string, number>();
    for (const sample of this.pick(this.samples, names, suffix, filter)) {
      const was = earlier.get(seriesKey(sample)) ?? 0;
      if (sample.value < was) this.restarted = true;
      const increase = sample.value < was ? sample.value : sample.value - was;
      sums.set(key(sample), (sums.get(key(sample)) ?? 0) + increase);
    }
    return sums;
  }

  private increase(names: readonly string[], suffix: string, filter: Filter): number | null {
    if (this.pick(this.samples, names, suffix, filter).length === 0) return null;
    return sum([...this.increases(names, suffix, filter, () => "").values()]);
  }

  private percentiles(names: readonly string[], filter: Filter): LatencyPercentiles | null {
    const bucketsOf = (counts: Map<string, number>): HistogramBucket[] =>
      [...counts].map(([le, count]) => ({ le: Number(le === "+Inf" ? Infinity : le), count }));
    const le = (sample: MetricSample) => String(parseLe(sample.labels.le));
    const windowed =
      this.before === undefined ? undefined : bucketsOf(this.increases(names, "_bucket", filter, le));
    const sinceStart = bucketsOf(sumBy(this.pick(this.samples, names, "_bucket", filter), le));
    for (const [buckets, window] of [
      [windowed, "between-scrapes"],
      [sinceStart, "since-start"],
    ] as const) {
      if (buckets === undefined) continue;
      const p50 = histogramQuantile(0.5, buckets);
      const p95 = histogramQuantile(0.95, buckets);
      const requests = buckets.find((bucket) => bucket.le === Infinity)?.count ?? 0;
      if (p50 !== undefined && p95 !== undefined) return { p50, p95, requests, window };
    }
    return null;
  }

  private byReason(filter: Filter): Record<string, number> {
    const totals = sumBy(
      this.pick(this.samples, VLLM_METRICS.requestsFinished, "", filter),
      (sample) => sample.labels.finished_reason ?? "unknown",
    );
    return Object.fromEntries([...totals].sort(([a], [b]) => a.localeCompare(b)));
  }
}

function loraAdapters(samples: readonly MetricSample[]) {
  const infos = samples.filter((sample) =>
    VLLM_METRICS.loraRequestsInfo.some((name) => sample.name === name),
  );
  const newest = infos.reduce<MetricSample | undefined>(
    (best, sample) => (best === undefined || sample.value > best.value ? sample : best),
    undefined,
  );
  const list = (text: string | undefined) =>
    (text ?? "")
      .split(",")
      .map((name) => name.trim())
      .filter((name) => name !== "");
  const maxLoras = Number.parseInt(newest?.labels.max_lora ?? "", 10);
  return {
    runningAdapters: list(newest?.labels.running_lora_adapters),
    waitingAdapters: list(newest?.labels.waiting_lora_adapters),
    maxLoras: Number.isInteger(maxLoras) ? maxLoras : null,
  };
}

function sumBy(samples: readonly MetricSample[], key: (sample: MetricSample) => string): Map<string, number> {
  const sums = new Map<string, number>();
  for (const sample of samples) sums.set(key(sample), (sums.get(key(sample)) ?? 0) + sample.value);
  return sums;
}

/** `le="1.0"` and `le="1"` are the same bound (Prometheus normalises them too). */
function parseLe(text: string | undefined): number {
  if (text === "+Inf" || text === "Inf") return Number.POSITIVE_INFINITY;
  return text === undefined || text.trim() === "" ? Number.NaN : Number(text);
}

function seriesKey(sample: MetricSample): string {
  const labels = Object.entries(sample.labels)
    .map(([name, value]) => [name, name === "le" ? String(parseLe(value)) : value])
    .sort(([a], [b]) => (a ?? "").localeCompare(b ?? ""));
  return JSON.stringify([sample.name, labels]);
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

function isString(value: string | undefined): value is string {
  return typeof value === "string";
}
