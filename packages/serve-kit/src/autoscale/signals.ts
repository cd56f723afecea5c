import { summarizeVllmMetrics, type VllmLoad } from "../monitoring/vllm-summary.js";
import type { FleetSample, InstanceSignals, ScalePolicy } from "./decide.js";

/**
 * The autoscaler's run-time signals: what one instance's `/metrics` page says of its load, and the samples a
 * supervisor keeps for `decideScale`. Pure: the supervisor reads the pages and the clock.
 */

/** One instance's signals, or why they are unknown (the supervisor says so rather than guess). */
export type SignalsReading =
  | { readonly signals: InstanceSignals }
  | { readonly signals: null; readonly reason: string };

/**
 * Reads `vllm:num_requests_waiting`, `vllm:num_requests_running` and the KV-cache usage (V1's
 * `vllm:kv_cache_usage_perc`, else V0's `vllm:gpu_cache_usage_perc`) from one instance's page. A server
 * with several engines (data parallel) writes one series per engine: their waiting and running requests
 * are summed and the fullest engine's KV usage taken, as the monitoring summary does. With `model`, only the
 * series labelled `model_name="<model>"` count. Without both queue gauges the signals are unknown; a KV
 * usage outside 0..1 (not vLLM's) is unknown too, and the queue figures still count.
 */
export function readInstanceSignals(metricsText: string, model?: string): SignalsReading {
  const summary = summarizeVllmMetrics({ text: metricsText, timeMs: 0 });
  if (!summary.readable) return unknown(summary.reason);
  const load: VllmLoad | undefined = model === undefined ? summary : summary.perModel[model];
  if (load === undefined) {
    return unknown(`the page has no series for model_name=${JSON.stringify(model)}`);
  }
  const { requestsWaiting: waiting, requestsRunning: running, kvCacheUsage: kv } = load;
  if (waiting === null || running === null) {
    return unknown("the page lacks vllm:num_requests_waiting or vllm:num_requests_running");
  }
  if (!isCount(waiting) || !isCount(running)) {
    return unknown(`the queue gauges are not counts (waiting ${waiting}, running ${running})`);
  }
  const kvUsage = kv !== null && kv >= 0 && kv <= 1 ? kv : null;
  return { signals: { waiting, running, kvUsage } };
}

function isCount(value: number): boolean {
  return Number.isFinite(value) && value >= 0;
}

function unknown(reason: string): SignalsReading {
  return { signals: null, reason };
}

/** How far back `decideScale` looks: the longer of its two windows. */
export function longestWindowMs(policy: Pick<ScalePolicy, "upWindowMs" | "downAfterMs">): number {
  return Math.max(policy.upWindowMs, policy.downAfterMs);
}

/** A bound on the samples kept whatever the clock does (one a second for more than an hour). */
export const MAX_KEPT_SAMPLES = 4096;

/**
 * The samples to keep once `next` is read (oldest first): those inside the longest window before it, and
 * the newest one older than that, which `decideScale` needs to know the window is covered. A sample whose
 * time goes back before the last one (a clock that jumped) starts the history again rather than be kept out
 * of order. At most `MAX_KEPT_SAMPLES`, the oldest dropped first.
 */
export function keepSamples(
  kept: readonly FleetSample[],
  next: FleetSample,
  policy: Pick<ScalePolicy, "upWindowMs" | "downAfterMs">,
): FleetSample[] {
  const last = kept[kept.length - 1];
  if (last !== undefined && next.timeMs < last.timeMs) return [next];
  const all = [...kept, next];
  const start = next.timeMs - longestWindowMs(policy);
  let firstKept = 0;
  for (let index = 0; index < all.length; index++) {
    if ((all[index] as FleetSample).timeMs <= start) firstKept = index;
    else break;
  }
  return all.slice(Math.max(firstKept, all.length - MAX_KEPT_SAMPLES));
}
