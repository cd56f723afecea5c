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
