import { type ExpositionLimits, type MetricSample, parseExposition } from "./exposition.js";
import { type HistogramBucket, histogramQuantile } from "./histogram-quantile.js";
import { SLO_METRICS, type SloName, type SloTarget } from "./slo-rules.js";
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

/** The share of prompt tokens the prefix cache held, 0..1, and over which window. */
export interface PrefixCacheHitRate {
  readonly share: number;
  /** Tokens looked up between the two scrapes, or (with one scrape, or none in between) since the start. */
  readonly window: "between-scrapes" | "since-start";
  /** Prompt tokens looked up in that window, to weigh shares of several instances; null from V0's gauge. */
  readonly tokens: number | null;
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
  /** Prefix-cache hits over lookups (in tokens); null without prefix caching or before any lookup. */
  readonly prefixCacheHitRate: PrefixCacheHitRate | null;
  /** Preemptions since the server started. */
  readonly preemptions: number | null;
  /** Finished requests since the server started, by vLLM's finished_reason (stop, length, abort, ...). */
  readonly finishedRequests: Readonly<Record<string, number>>;
}

/** The share of the requests finished between two scrapes that met one SLO target, as `sloRules` counts it. */
export interface SloAttainment {
  readonly slo: SloName;
  readonly targetMs: number;
  /** The bucket bound the target is counted up to (the largest at or below it), in seconds. */
  readonly countedUpToSeconds: number;
  /** Requests of the histogram finished between the scrapes; null when the page lacks the histogram. */
  readonly requests: number | null;
  /** Of those, the requests in the bucket counted up to. */
  readonly within: number | null;
  /** within / requests; null when no request finished between the scrapes. */
  readonly share: number | null;
}

export interface SummaryOptions extends ExpositionLimits {
  /** SLO targets (`sloTargets`): adds `sloAttainment`, between the two scrapes. */
  slo?: readonly SloTarget[];
}

export interface ReadableVllmMetrics extends VllmLoad {
  /** With `slo` and two scrapes: each target's attainment between them; null with one scrape. */
  readonly sloAttainment?: readonly SloAttainment[] | null;
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
  /** The same figures for each model_name (the first `MAX_MODELS_SUMMARISED` in name order). */
  readonly perModel: Readonly<Record<string, VllmLoad>>;
  /** How many models the page names beyond those `perModel` holds. */
  readonly perModelOmitted: number;
}

export interface UnreadableVllmMetrics {
  readonly readable: false;
  readonly reason: string;
}

export type VllmMetricsSummary = ReadableVllmMetrics | UnreadableVllmMetrics;

/** At most this many models get figures of their own in `perModel`; the rest count in `perModelOmitted`. */
export const MAX_MODELS_SUMMARISED = 100;

/**
 * Summarises a vLLM instance from its `/metrics` page: `later` is the current scrape, `earlier` (optional)
 * one taken a moment before, from which token rates are counter increases over the time between them.
 * Garbage, a page that is not vLLM's, or one past the limits gives `{ readable: false, reason }`; it never
 * throws. The cost grows linearly with the page: every sample is indexed once by name and by model.
 */
export function summarizeVllmMetrics(
  later: MetricsScrape,
  earlier?: MetricsScrape,
  limits?: SummaryOptions,
): VllmMetricsSummary {
  const current = parseExposition(later?.text, limits);
  if (!current.ok) return { readable: false, reason: current.reason };
  const samples = current.samples.filter((sample) => sample.name.startsWith("vllm:"));
  if (samples.length === 0) {
    return { readable: false, reason: "the page holds no vLLM metrics (is this a vLLM server?)" };
  }
  const previous = earlier === undefined ? undefined : parseExposition(earlier.text, limits);
  const before = previous?.ok
    ? previous.samples.filter((sample) => sample.name.startsWith("vllm:"))
    : undefined;
  const seconds = previous?.ok ? (later.timeMs - (earlier?.timeMs ?? 0)) / 1000 : Number.NaN;
  const interval = Number.isFinite(seconds) && seconds > 0 ? seconds : null;
  const whole = new LoadReader(samples, before, interval);

  const byModel = groupBy(samples, (sample) => sample.labels.model_name);
  const beforeByModel =
    before === undefined ? undefined : groupBy(before, (sample) => sample.labels.model_name);
  const models = [...byModel.keys()].sort();
  const perModel: Record<string, VllmLoad> = {};
  let restarted = false;
  for (const model of models.slice(0, MAX_MODELS_SUMMARISED)) {
    const reader = new LoadReader(
      byModel.get(model) ?? [],
      beforeByModel?.get(model) ?? (before && []),
      interval,
    );
    perModel[model] = reader.load();
    restarted ||= reader.restarted;
  }
  const load = whole.load();
  return {
    readable: true,
    models,
    ...load,
    ...loraAdapters(samples),
    intervalSeconds: interval,
    restarted: restarted || whole.restarted,
    perModel,
    perModelOmitted: Math.max(0, models.length - MAX_MODELS_SUMMARISED),
    ...(limits?.slo === undefined
      ? {}
      : {
          sloAttainment: before === undefined ? null : limits.slo.map((target) => whole.attainment(target)),
        }),
  };
}

/** The figures of one set of samples (an instance, or one model on it), each name looked up once. */
class LoadReader {
  restarted = false;
  private readonly byName: Map<string, MetricSample[]>;
  private readonly beforeByName: Map<string, MetricSample[]> | undefined;

  constructor(
    samples: readonly MetricSample[],
    before: readonly MetricSample[] | undefined,
    private readonly interval: number | null,
  ) {
    this.byName = groupBy(samples, (sample) => sample.name);
    this.beforeByName = before === undefined ? undefined : groupBy(before, (sample) => sample.name);
  }

  load(): VllmLoad {
    const gauge = (names: readonly string[], combine: (values: number[]) => number) => {
      const values = this.pick(this.byName, names, "").map((sample) => sample.value);
      return values.length === 0 ? null : combine(values);
    };
    const rate = (names: readonly string[]) => {
      if (this.interval === null) return null;
      const increase = this.increase(names, "");
      return increase === null ? null : increase / this.interval;
    };
    const total = (names: readonly string[]) => gauge(names, sum);
    return {
      requestsRunning: gauge(VLLM_METRICS.requestsRunning, sum),
      requestsWaiting: gauge(VLLM_METRICS.requestsWaiting, sum),
      kvCacheUsage: gauge(VLLM_METRICS.kvCacheUsage, largest),
      promptTokensPerSecond: rate(VLLM_METRICS.promptTokens),
      generationTokensPerSecond: rate(VLLM_METRICS.generationTokens),
      timeToFirstToken: this.percentiles(VLLM_METRICS.timeToFirstToken),
      e2eLatency: this.percentiles(VLLM_METRICS.e2eLatency),
      prefixCacheHitRate: this.prefixCacheHitRate(total, gauge(VLLM_METRICS.prefixCacheHitRateV0, largest)),
      preemptions: total(VLLM_METRICS.preemptions),
      finishedRequests: this.byReason(),
    };
  }

  /**
   * As `sloRules` records it: the increase of the largest bucket at or below the target (buckets are
   * cumulative) over the increase of the histogram's `_count`, between the two scrapes.
   */
  attainment(target: SloTarget): SloAttainment {
    const { names } = SLO_METRICS[target.slo];
    const counted = {
      slo: target.slo,
      targetMs: target.targetMs,
      countedUpToSeconds: target.countedUpToSeconds,
    };
    if (this.pick(this.byName, names, "_count").length === 0) {
      return { ...counted, requests: null, within: null, share: null };
    }
    const requests = this.increase(names, "_count") ?? 0;
    const bounds = new Set(target.bounds.map(String));
    const byBound = this.increases(names, "_bucket", (sample) => String(parseLe(sample.labels.le)));
    let within = 0;
    for (const [le, count] of byBound) if (bounds.has(le) && count > within) within = count;
    return { ...counted, requests, within, share: requests > 0 ? within / requests : null };
  }

  /** The samples of the first name in `names` that the page has (current name before deprecated one). */
  private pick(index: Map<string, MetricSample[]>, names: readonly string[], suffix: string): MetricSample[] {
    for (const name of names) {
      const found = index.get(name + suffix);
      if (found !== undefined) return found.filter((sample) => !Number.isNaN(sample.value));
    }
    return [];
  }

  /** Per-series increase between the scrapes, reset-aware as Prometheus' increase(), summed by `key`. */
  private increases(names: readonly string[], suffix: string, key: (s: MetricSample) => string) {
    const earlier = new Map<string, number>();
    for (const sample of this.pick(this.beforeByName ?? new Map(), names, suffix)) {
      earlier.set(seriesKey(sample), sample.value);
    }
    const sums = new Map<string, number>();
    for (const sample of this.pick(this.byName, names, suffix)) {
      const was = earlier.get(seriesKey(sample)) ?? 0;
      if (sample.value < was) this.restarted = true;
      const increase = sample.value < was ? sample.value : sample.value - was;
      sums.set(key(sample), (sums.get(key(sample)) ?? 0) + increase);
    }
    return sums;
  }

  private increase(names: readonly string[], suffix: string): number | null {
    if (this.pick(this.byName, names, suffix).length === 0) return null;
    return sum([...this.increases(names, suffix, () => "").values()]);
  }

  private percentiles(names: readonly string[]): LatencyPercentiles | null {
    const bucketsOf = (counts: Map<string, number>): HistogramBucket[] =>
      [...counts].map(([le, count]) => ({ le: Number(le === "+Inf" ? Infinity : le), count }));
    const le = (sample: MetricSample) => String(parseLe(sample.labels.le));
    const windowed =
      this.beforeByName === undefined ? undefined : bucketsOf(this.increases(names, "_bucket", le));
    const sinceStart = bucketsOf(sumBy(this.pick(this.byName, names, "_bucket"), le));
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

  /**
   * vLLM V1 counts lookups and hits in tokens (`prefix_cache_queries`, `prefix_cache_hits`): their increases
   * between the scrapes, else their totals; the V0 engine only has a gauge of its rate since it started.
   */
  private prefixCacheHitRate(
    total: (names: readonly string[]) => number | null,
    v0Rate: number | null,
  ): PrefixCacheHitRate | null {
    const queried =
      this.beforeByName === undefined ? null : this.increase(VLLM_METRICS.prefixCacheQueries, "");
    if (queried !== null && queried > 0) {
      const hits = this.increase(VLLM_METRICS.prefixCacheHits, "") ?? 0;
      return { share: hits / queried, window: "between-scrapes", tokens: queried };
    }
    const queries = total(VLLM_METRICS.prefixCacheQueries);
    if (queries !== null && queries > 0) {
      return {
        share: (total(VLLM_METRICS.prefixCacheHits) ?? 0) / queries,
        window: "since-start",
        tokens: queries,
      };
    }
    return v0Rate === null || queries !== null
      ? null
      : { share: v0Rate, window: "since-start", tokens: null };
  }

  private byReason(): Record<string, number> {
    const totals = sumBy(
      this.pick(this.byName, VLLM_METRICS.requestsFinished, ""),
      (sample) => sample.labels.finished_reason ?? "unknown",
    );
    return Object.fromEntries([...totals].sort(([a], [b]) => a.localeCompare(b)));
  }
}

/** The samples under each key, in page order; samples without a key are left out. */
function groupBy(
  samples: readonly MetricSample[],
  key: (sample: MetricSample) => string | undefined,
): Map<string, MetricSample[]> {
  const groups = new Map<string, MetricSample[]>();
  for (const sample of samples) {
    const name = key(sample);
    if (name === undefined) continue;
    const group = groups.get(name);
    if (group === undefined) groups.set(name, [sample]);
    else group.push(sample);
  }
  return groups;
}

/** The largest value, without spreading a list (a page may hold more series than the call stack has room for). */
function largest(values: readonly number[]): number {
  let max = Number.NEGATIVE_INFINITY;
  for (const value of values) if (value > max) max = value;
  return max;
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
