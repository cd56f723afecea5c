// The names vLLM's `/metrics` uses, as vLLM's V1 engine writes them (vllm/v1/metrics/loggers.py,
// PrometheusStatLogger, read at the v0.10/v0.11 line). Counters appear with prometheus_client's `_total`
// suffix. Where a metric was renamed, the current name comes first and the deprecated one older servers
// send follows; the reader takes the first one present.

export const VLLM_METRICS = {
  /** Gauge: requests in the running batch. Labels model_name, engine. */
  requestsRunning: ["vllm:num_requests_running"],
  /** Gauge: requests waiting to be scheduled. */
  requestsWaiting: ["vllm:num_requests_waiting"],
  /** Gauge 0..1. Renamed in vLLM 0.9 from gpu_cache_usage_perc, which was then hidden and removed. */
  kvCacheUsage: ["vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"],
  /** Counter: prefill tokens processed. */
  promptTokens: ["vllm:prompt_tokens_total"],
  /** Counter: generated tokens. */
  generationTokens: ["vllm:generation_tokens_total"],
  /** Counter: requests preempted (their KV cache was freed to make room). */
  preemptions: ["vllm:num_preemptions_total"],
  /** Counter by finished_reason: stop, length, abort, and on newer servers error and repetition. */
  requestsFinished: ["vllm:request_success_total"],
  /** Histogram (seconds): time to first token. */
  timeToFirstToken: ["vllm:time_to_first_token_seconds"],
  /** Histogram (seconds): end-to-end request latency. */
  e2eLatency: ["vllm:e2e_request_latency_seconds"],
  /**
   * Histogram (seconds): time per output token. vLLM 0.11 added the per-request one (each request's mean,
   * what `bench` measures as TPOT); older servers only have time_per_output_token_seconds, one sample per
   * token interval.
   */
  timePerOutputToken: ["vllm:request_time_per_output_token_seconds", "vllm:time_per_output_token_seconds"],
  /** Counter: prefix-cache lookups, in tokens. vLLM 0.10 dropped the `gpu_` of 0.8's name. */
  prefixCacheQueries: ["vllm:prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries_total"],
  /** Counter: prefix-cache hits, in tokens. */
  prefixCacheHits: ["vllm:prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits_total"],
  /** Gauge 0..1: the V0 engine's prefix-cache hit rate since it started (before the counters above). */
  prefixCacheHitRateV0: ["vllm:gpu_prefix_cache_hit_rate"],
  /**
   * Gauge whose value is the time it was set, labelled max_lora, running_lora_adapters and
   * waiting_lora_adapters (comma-separated names). Every label combination ever seen stays on the page,
   * so the newest (highest value) is the current one. Present only when LoRA is enabled.
   */
  loraRequestsInfo: ["vllm:lora_requests_info"],
} as const;

/**
 * Finish reasons that mean a request did not end as the client asked: `error` (an internal failure, sent
 * to the client as a 500) and `abort` (the client went away, often after its own timeout).
 */
export const VLLM_ERROR_FINISH_REASONS = ["error", "abort"] as const;

/**
 * vLLM's histogram bucket bounds in seconds (vllm/v1/metrics/loggers.py, v0.10/v0.11 line). The SLO rules
 * count a request within a target from the largest of these bounds at or below it.
 */
export const VLLM_BUCKETS = {
  timeToFirstToken: [
    0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0,
    80.0, 160.0, 640.0, 2560.0,
  ],
  timePerOutputToken: [
    0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0,
  ],
  e2eLatency: [
    0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0,
    960.0, 1920.0, 7680.0,
  ],
} as const;
