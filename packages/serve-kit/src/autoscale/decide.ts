import { HPA_DEFAULTS, hpaScaleUpLimit } from "./hpa-rule.js";

/**
 * The autoscaler's rule: from vLLM's own signals, read from each serving instance's `/metrics`, whether a
 * fleet grows, shrinks or holds. Pure: the supervisor reads the pages, keeps the samples and acts.
 *
 * It grows when, for the whole up window, the waiting requests per serving instance stay past `queue` (or
 * the mean KV-cache usage past `kv`), to the size the Kubernetes HPA's rule gives for the window's mean load
 * (ceil(total waiting / queue)), at most max(2x, +4) in one step as the HPA's default scale-up policies
 * allow, never past `max`. It shrinks, at once, to the fewest instances (never below `min`) that would
 * have run every read of the whole `downAfterMs` with nothing waiting (each runs at most `batch` requests at
 * once, vLLM's --max-num-seqs) and the KV-cache usage within `kv`, with the busiest stretch of the window's
 * mean load 10% under what they run at once (the HPA's tolerance). While an instance starts, wakes or
 * drains, it does not shrink: a step's effect is seen before the next one.
 */

/** One serving instance's load, as its `/metrics` page said it. */
export interface InstanceSignals {
  /** `vllm:num_requests_waiting`. */
  readonly waiting: number;
  /** `vllm:num_requests_running`. */
  readonly running: number;
  /** V1's `vllm:kv_cache_usage_perc` (V0's `vllm:gpu_cache_usage_perc`), 0..1; null when the page lacks it. */
  readonly kvUsage: number | null;
}

/** The serving instances' signals read at one time. */
export interface FleetSample {
  readonly timeMs: number;
  readonly serving: readonly InstanceSignals[];
}

export interface ScalePolicy {
  readonly min: number;
  readonly max: number;
  /** Waiting requests per serving instance past which the fleet grows. */
  readonly queue: number;
  /** Mean KV-cache usage (0..1) past which the fleet grows; undefined: KV usage only bounds shrinking. */
  readonly kv?: number | undefined;
  /** How long a signal stays past its threshold before an instance is added. */
  readonly upWindowMs: number;
  /** How long the fleet must have fitted with one instance fewer before one is drained. */
  readonly downAfterMs: number;
  /** Requests one instance runs at once (vLLM's --max-num-seqs). */
  readonly batch: number;
}

/** Instances in each moving state besides serving; asleep ones are neither capacity nor load. */
export interface FleetCounts {
  readonly serving: number;
  /** Starting or waking: capacity already on its way. */
  readonly arriving: number;
  readonly draining: number;
}

export type ScaleDecision =
  | { readonly action: "hold"; readonly reason: string }
  | { readonly action: "up"; readonly add: number; readonly reason: string }
  | { readonly action: "down"; readonly remove: number; readonly reason: string };

/** Above this mean KV-cache usage vLLM preempts: shrinking never projects the fleet past it. */
const KV_FULL = 1;

/** The decision at `nowMs` from the samples kept so far (oldest first, any length). */
export function decideScale(
  samples: readonly FleetSample[],
  policy: ScalePolicy,
  counts: FleetCounts,
  nowMs: number,
): ScaleDecision {
  const planned = counts.serving + counts.arriving;
  const upWindow = windowOf(samples, nowMs, policy.upWindowMs);
  if (upWindow?.every((sample) => pressed(sample, policy))) {
    return growth(upWindow, policy, planned);
  }
  if (counts.serving <= policy.min) return hold(`at the minimum of ${policy.min}`);
  if (counts.arriving > 0 || counts.draining > 0) return hold("an instance is still starting or draining");
  const downWindow = windowOf(samples, nowMs, policy.downAfterMs);
  if (downWindow === undefined) return hold(`fewer than ${seconds(policy.downAfterMs)} of signals read`);
  const fewest = fewestThatFit(downWindow, policy, counts.serving);
  if (typeof fewest === "string") return hold(fewest);
  const last = downWindow[downWindow.length - 1] as FleetSample;
  const fewer = counts.serving - fewest;
  return {
    action: "down",
    remove: fewer,
    reason: `${fewer === 1 ? "one" : fewer} fewer would have fitted for ${seconds(policy.downAfterMs)} (${describe(last)}): ${counts.serving} → ${fewest}`,
  };
}

/**
 * The fewest instances, from MIN up to one fewer than `serving`, that would have run the window's load (as
 * the HPA drops to its desired count at once: a load that fell from four instances' worth to one's goes in
 * one step, not three windows); or why not even one fewer would have.
 */
function fewestThatFit(
  window: readonly FleetSample[],
  policy: ScalePolicy,
  serving: number,
): number | string {
  const busiest = busiestStretchLoad(window, policy.upWindowMs);
  let why = "";
  for (let count = Math.max(policy.min, 1); count < serving; count++) {
    const tight = window.find((sample) => !fitsOn(sample, policy, count));
    const slots = count * policy.batch;
    if (tight !== undefined) why = `one fewer would not have fitted: ${describe(tight)}`;
    else if (busiest > slots * (1 - HPA_DEFAULTS.tolerance)) {
      why = `${count} would have been too busy: ${round(busiest)} requests on average over ${seconds(policy.upWindowMs)} for their ${slots} at once`;
    } else return count;
  }
  return why;
}

/** The samples of the last `spanMs`, or undefined when the samples kept do not reach back that far. */
function windowOf(samples: readonly FleetSample[], nowMs: number, spanMs: number) {
  const start = nowMs - spanMs;
  const first = samples[0];
  if (first === undefined || first.timeMs > start) return undefined;
  const inWindow = samples.filter((sample) => sample.timeMs >= start);
  return inWindow.length === 0 ? undefined : inWindow;
}

function growth(window: readonly FleetSample[], policy: ScalePolicy, planned: number): ScaleDecision {
  const last = window[window.length - 1] as FleetSample;
  if (planned >= policy.max) return hold(`at the maximum of ${policy.max} (${describe(last)})`);
  // The HPA's size for the window's mean load, as Knative's KPA averages its window: a queue that built up
  // through the window is met at its mean (its first sample alone, just past the threshold, under-sized a
  // step load by half), a spike in one sample is not followed.
  const sizes = window.map((sample) => hpaSize(sample, policy));
  const wanted = Math.ceil(sizes.reduce((sum, size) => sum + size, 0) / sizes.length - 1e-9);
  if (wanted <= planned) return hold(`the instances on their way cover ${describe(last)}`);
  const target = Math.min(policy.max, wanted, hpaScaleUpLimit(planned));
  return {
    action: "up",
    add: target - planned,
    reason: `${describe(last)} for ${seconds(policy.upWindowMs)}: ${planned} → ${target}`,
  };
}

/** Whether a sample's fleet is past a threshold. */
function pressed(sample: FleetSample, policy: ScalePolicy): boolean {
  const n = sample.serving.length;
  if (n === 0) return false;
  if (totalWaiting(sample) / n > policy.queue) return true;
  const kv = meanKv(sample);
  return policy.kv !== undefined && kv !== null && kv > policy.kv;
}

/** The Kubernetes HPA's size for an AverageValue target on the total, before rounding up: total waiting / queue. */
function hpaSize(sample: FleetSample, policy: ScalePolicy): number {
  const byQueue = totalWaiting(sample) / policy.queue;
  const kv = meanKv(sample);
  const byKv = policy.kv !== undefined && kv !== null ? (sample.serving.length * kv) / policy.kv : 0;
  return Math.max(byQueue, byKv);
}

/**
 * The highest mean load (running and waiting) over the stretches of the window as long as `stretchMs`.
 * Instances are not shrunk to run it at their very limit (fewestThatFit keeps the HPA's 10% tolerance), and
 * stretches rather than the whole window's mean: a load that just fell has not fitted for the whole window.
 */
function busiestStretchLoad(window: readonly FleetSample[], stretchMs: number): number {
  const start = (window[0] as FleetSample).timeMs;
  const stretches = new Map<number, number[]>();
  for (const sample of window) {
    const stretch = Math.floor((sample.timeMs - start) / stretchMs);
    stretches.set(stretch, [...(stretches.get(stretch) ?? []), loadOf(sample)]);
  }
  const means = [...stretches.values()].map(
    (loads) => loads.reduce((sum, load) => sum + load, 0) / loads.length,
  );
  return Math.max(...means);
}

/**
 * Whether the sample's load, spread on `count` instances, would have run at once (nothing waiting: each runs
 * `batch`, vLLM's --max-num-seqs) within the KV-cache threshold. Every sample of the window must: the
 * highest need of the window counts, as the HPA's stabilization takes the highest recommendation.
 */
function fitsOn(sample: FleetSample, policy: ScalePolicy, count: number): boolean {
  const n = sample.serving.length;
  if (n === 0 || count >= n) return false;
  const load = loadOf(sample);
  if (load > count * policy.batch) return false;
  const kv = meanKv(sample);
  return kv === null || (kv * n) / count <= (policy.kv ?? KV_FULL);
}

/** The requests the sample's instances hold: running and waiting. */
function loadOf(sample: FleetSample): number {
  return sample.serving.reduce((sum, one) => sum + one.running + one.waiting, 0);
}

export function totalWaiting(sample: FleetSample): number {
  return sample.serving.reduce((sum, one) => sum + one.waiting, 0);
}

/** The mean KV-cache usage of the instances that report it; null when none does. */
export function meanKv(sample: FleetSample): number | null {
  const known = sample.serving.flatMap((one) => (one.kvUsage === null ? [] : [one.kvUsage]));
  return known.length === 0 ? null : known.reduce((sum, kv) => sum + kv, 0) / known.length;
}

/** The signals of one sample in words, for the log line and `status`. */
export function describe(sample: FleetSample): string {
  const n = sample.serving.length;
  const waiting = totalWaiting(sample);
  const running = sample.serving.reduce((sum, one) => sum + one.running, 0);
  const kv = meanKv(sample);
  const perInstance = n === 0 ? 0 : waiting / n;
  const kvText = kv === null ? "KV usage unknown" : `KV usage ${(kv * 100).toFixed(0)}%`;
  return `${waiting} waiting (${round(perInstance)} per instance), ${running} running on ${n}, ${kvText}`;
}

function hold(reason: string): ScaleDecision {
  return { action: "hold", reason };
}

function seconds(ms: number): string {
  return `${round(ms / 1000)} s`;
}

function round(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}
