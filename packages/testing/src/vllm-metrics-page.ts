// A `/metrics` page in vLLM's own text format, driven by the test, so a stand-in vLLM can serve numbers the
// test knows. It follows what vLLM's V1 engine writes (vllm/v1/metrics/loggers.py at the v0.10/v0.11 line)
// through prometheus_client in multiprocess mode: labels sorted by name, Python float text ("3.0",
// "1e-05"), counters with `_total` in HELP, TYPE and samples, histograms as _sum, _bucket and _count.

/** vLLM's bucket bounds for time to first token, in seconds. */
export const VLLM_TTFT_BUCKETS = [
  0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0,
  80.0, 160.0, 640.0, 2560.0,
] as const;

/** vLLM's bucket bounds for request latencies (end to end, queue, prefill, decode), in seconds. */
export const VLLM_REQUEST_LATENCY_BUCKETS = [
  0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0,
  960.0, 1920.0, 7680.0,
] as const;

/** vLLM's bucket bounds for time per output token, in seconds. */
export const VLLM_TPOT_BUCKETS = [
  0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0,
] as const;

/** The finish reasons vLLM initialises request_success_total with. */
export const VLLM_FINISH_REASONS = ["stop", "length", "abort", "error", "repetition"] as const;
export type VllmFinishReason = (typeof VLLM_FINISH_REASONS)[number];

export interface VllmMetricsPageOptions {
  /** The served model names (model_name label). Default `["stand-in"]`. */
  models?: readonly string[];
  /** Engines per model (the engine label; data-parallel servers have several). Default 1. */
  engines?: number;
  /** Present vllm:lora_requests_info with this max_lora, as a server started with --enable-lora does. */
  maxLoras?: number;
  /**
   * Write the metrics vLLM later renamed under their old names only, as servers before 0.9 did:
   * vllm:gpu_cache_usage_perc, vllm:gpu_prefix_cache_{queries,hits}_total and the per-token
   * vllm:time_per_output_token_seconds (newer servers write vllm:request_time_per_output_token_seconds).
   */
  deprecatedNames?: boolean;
}

export interface FinishedRequest {
  model?: string;
  engine?: number;
  promptTokens: number;
  generationTokens: number;
  timeToFirstTokenSeconds: number;
  e2eLatencySeconds: number;
  /** The request's time per output token; observed when given. */
  timePerOutputTokenSeconds?: number;
  /** Prompt tokens looked up in the prefix cache, and how many of them were found. */
  prefixCacheQueries?: number;
  prefixCacheHits?: number;
  finishedReason?: VllmFinishReason;
}

interface Histogram {
  sum: number;
  counts: number[];
  count: number;
}

interface EngineState {
  running: number;
  waiting: number;
  kvCacheUsage: number;
  promptTokens: number;
  generationTokens: number;
  preemptions: number;
  prefixCacheQueries: number;
  prefixCacheHits: number;
  finished: Record<VllmFinishReason, number>;
  ttft: Histogram;
  e2e: Histogram;
  tpot: Histogram;
}

/** The state of a stand-in vLLM's metrics; `render()` writes the page. */
export class VllmMetricsPage {
  readonly models: readonly string[];
  private readonly engines = new Map<string, EngineState>();
  private readonly options: VllmMetricsPageOptions;
  private readonly lora: { labels: Record<string, string>; setAt: number }[] = [];

  constructor(options: VllmMetricsPageOptions = {}) {
    this.options = options;
    this.models = options.models ?? ["stand-in"];
    for (const model of this.models) {
      for (let engine = 0; engine < (options.engines ?? 1); engine++) {
        this.engines.set(key(model, engine), emptyEngine());
      }
    }
  }

  /** Sets the scheduler gauges of one engine (the first model's engine 0 unless named). */
  setScheduler(
    values: { running?: number; waiting?: number; kvCacheUsage?: number },
    model?: string,
    engine = 0,
  ) {
    const state = this.engine(model, engine);
    if (values.running !== undefined) state.running = values.running;
    if (values.waiting !== undefined) state.waiting = values.waiting;
    if (values.kvCacheUsage !== undefined) state.kvCacheUsage = values.kvCacheUsage;
  }

  /** Counts one finished request as vLLM's stat logger does: tokens, finish reason, TTFT and latency. */
  recordRequest(request: FinishedRequest): void {
    const state = this.engine(request.model, request.engine ?? 0);
    state.promptTokens += request.promptTokens;
    state.generationTokens += request.generationTokens;
    state.finished[request.finishedReason ?? "stop"] += 1;
    observe(state.ttft, VLLM_TTFT_BUCKETS, request.timeToFirstTokenSeconds);
    observe(state.e2e, VLLM_REQUEST_LATENCY_BUCKETS, request.e2eLatencySeconds);
    if (request.timePerOutputTokenSeconds !== undefined) {
      observe(state.tpot, VLLM_TPOT_BUCKETS, request.timePerOutputTokenSeconds);
    }
    state.prefixCacheQueries += request.prefixCacheQueries ?? 0;
    state.prefixCacheHits += request.prefixCacheHits ?? 0;
  }

  preempt(count = 1, model?: string, engine = 0): void {
    this.engine(model, engine).preemptions += count;
  }

  /** Records the adapters in the running and waiting batches at `atSeconds` (a Unix time, as vLLM sets). */
  setLoraAdapters(running: readonly string[], waiting: readonly string[], atSeconds: number): void {
    const labels = {
      max_lora: String(this.options.maxLoras ?? 1),
      running_lora_adapters: running.join(","),
      waiting_lora_adapters: waiting.join(","),
    };
    const same = this.lora.find((entry) => JSON.stringify(entry.labels) === JSON.stringify(labels));
    if (same) same.setAt = atSeconds;
    else this.lora.push({ labels, setAt: atSeconds });
  }

  /** Starts every counter and histogram again from zero, as a restarted server does. */
  restart(): void {
    for (const name of this.engines.keys()) this.engines.set(name, emptyEngine());
  }

  render(): string {
    const out: string[] = [];
    const each = (read: (state: EngineState) => number) =>
      [...this.engines].map(([name, state]) => ({ labels: engineLabels(name), value: read(state) }));
    const family = (name: string, type: string, help: string, rows: { labels: Labels; value: number }[]) => {
      out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
      for (const row of rows) out.push(`${name}${labelText(row.labels)} ${pyFloat(row.value)}`);
    };
    const histogram = (
      name: string,
      help: string,
      bounds: readonly number[],
      read: (s: EngineState) => Histogram,
    ) => {
      out.push(`# HELP ${name} ${help}`, `# TYPE ${name} histogram`);
      for (const [engineName, state] of this.engines) {
        const labels = engineLabels(engineName);
        const data = read(state);
        out.push(`${name}_sum${labelText(labels)} ${pyFloat(data.sum)}`);
        bounds.forEach((bound, index) => {
          out.push(
            `${name}_bucket${labelText({ ...labels, le: pyFloat(bound) })} ${pyFloat(data.counts[index] ?? 0)}`,
          );
        });
        out.push(`${name}_bucket${labelText({ ...labels, le: "+Inf" })} ${pyFloat(data.count)}`);
        out.push(`${name}_count${labelText(labels)} ${pyFloat(data.count)}`);
      }
    };
    if (this.options.maxLoras !== undefined) {
      out.push(
        "# HELP vllm:lora_requests_info Running stats on lora requests.",
        "# TYPE vllm:lora_requests_info gauge",
      );
      for (const entry of this.lora)
        out.push(`vllm:lora_requests_info${labelText(entry.labels)} ${pyFloat(entry.setAt)}`);
    }
    family(
      "vllm:num_requests_running",
      "gauge",
      "Number of requests in model execution batches.",
      each((s) => s.running),
    );
    family(
      "vllm:num_requests_waiting",
      "gauge",
      "Number of requests waiting to be processed.",
      each((s) => s.waiting),
    );
    if (this.options.deprecatedNames) {
      family(
        "vllm:gpu_cache_usage_perc",
        "gauge",
        "GPU KV-cache usage. 1 means 100 percent usage.",
        each((s) => s.kvCacheUsage),
      );
    } else {
      family(
        "vllm:kv_cache_usage_perc",
        "gauge",
        "KV-cache usage. 1 means 100 percent usage.",
        each((s) => s.kvCacheUsage),
      );
    }
    family(
      "vllm:num_preemptions_total",
      "counter",
      "Cumulative number of preemption from the engine.",
      each((s) => s.preemptions),
    );
    const prefix = this.options.deprecatedNames ? "vllm:gpu_prefix_cache" : "vllm:prefix_cache";
    family(
      `${prefix}_queries_total`,
      "counter",
      "Prefix cache queries, in terms of number of queried tokens.",
      each((s) => s.prefixCacheQueries),
    );
    family(
      `${prefix}_hits_total`,
      "counter",
      "Prefix cache hits, in terms of number of cached tokens.",
      each((s) => s.prefixCacheHits),
    );
    family(
      "vllm:prompt_tokens_total",
      "counter",
      "Number of prefill tokens processed.",
      each((s) => s.promptTokens),
    );
    family(
      "vllm:generation_tokens_total",
      "counter",
      "Number of generation tokens processed.",
      each((s) => s.generationTokens),
    );
    family(
      "vllm:request_success_total",
      "counter",
      "Count of successfully processed requests.",
      [...this.engines].flatMap(([name, state]) =>
        VLLM_FINISH_REASONS.map((reason) => ({
          labels: { ...engineLabels(name), finished_reason: reason },
          value: state.finished[reason],
        })),
      ),
    );
    histogram(
      "vllm:time_to_first_token_seconds",
      "Histogram of time to first token in seconds.",
      VLLM_TTFT_BUCKETS,
      (s) => s.ttft,
    );
    histogram(
      "vllm:e2e_request_latency_seconds",
      "Histogram of e2e request latency in seconds.",
      VLLM_REQUEST_LATENCY_BUCKETS,
      (s) => s.e2e,
    );
    histogram(
      this.options.deprecatedNames
        ? "vllm:time_per_output_token_seconds"
        : "vllm:request_time_per_output_token_seconds",
      "Histogram of time per output token in seconds.",
      VLLM_TPOT_BUCKETS,
      (s) => s.tpot,
    );
    return `${out.join("\n")}\n`;
  }

  private engine(model: string | undefined, engine: number): EngineState {
    const state = this.engines.get(key(model ?? this.models[0] ?? "", engine));
    if (state === undefined)
      throw new Error(`the page has no model ${JSON.stringify(model)} engine ${engine}`);
    return state;
  }
}

type Labels = Record<string, string>;

function key(model: string, engine: number): string {
  return JSON.stringify([model, engine]);
}

function engineLabels(name: string): Labels {
  const [model, engine] = JSON.parse(name) as [string, number];
  return { engine: String(engine), model_name: model };
}

function emptyEngine(): EngineState {
  const histogram = (bounds: readonly number[]) => ({ sum: 0, counts: bounds.map(() => 0), count: 0 });
  return {
    running: 0,
    waiting: 0,
    kvCacheUsage: 0,
    promptTokens: 0,
    generationTokens: 0,
    preemptions: 0,
    prefixCacheQueries: 0,
    prefixCacheHits: 0,
    finished: { stop: 0, length: 0, abort: 0, error: 0, repetition: 0 },
    ttft: histogram(VLLM_TTFT_BUCKETS),
    e2e: histogram(VLLM_REQUEST_LATENCY_BUCKETS),
    tpot: histogram(VLLM_TPOT_BUCKETS),
  };
}

function observe(histogram: Histogram, bounds: readonly number[], value: number): void {
  histogram.sum += value;
  histogram.count += 1;
  bounds.forEach((bound, index) => {
    if (value <= bound) histogram.counts[index] = (histogram.counts[index] ?? 0) + 1;
  });
}

/** Labels sorted by name, values escaped as the text format wants. */
function labelText(labels: Labels): string {
  const parts = Object.keys(labels)
    .sort()
    .map(
      (name) =>
        `${name}="${(labels[name] ?? "").replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`,
    );
  return `{${parts.join(",")}}`;
}

/** A number as Python's repr writes a float: "3.0", "0.25", "1e-05", "1.5e+21". */
export function pyFloat(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Number.POSITIVE_INFINITY) return "+Inf";
  if (value === Number.NEGATIVE_INFINITY) return "-Inf";
  if (Number.isInteger(value) && Math.abs(value) < 1e16) return `${value}.0`;
  const text = String(value);
  if (Math.abs(value) < 1e-4 && !text.includes("e"))
    return value.toExponential().replace(/e([+-])(\d)$/, "e$10$2");
  return text.replace(/e([+-])(\d)$/, "e$10$2");
}
