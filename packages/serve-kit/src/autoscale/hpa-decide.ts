import { type FleetCounts, type FleetSample, meanKv, type ScaleDecision, totalWaiting } from "./decide.js";
import { type HpaMetric, type HpaState, hpaSyncMetrics } from "./hpa-rule.js";

/**
 * The HPA's rule on a local fleet (`launch --scale-rule hpa`): one sync of hpaSyncMetrics on one read of the
 * serving instances, with the triggers `stack scaledobject` writes for KEDA: `queue` an AverageValue target
 * on the total waiting (`sum(vllm:num_requests_waiting)`), `kv` a Value target on the mean KV-cache usage.
 * The HPA's replica count is the fleet's planned size (serving and arriving); the decision adds or removes
 * the difference to its new count. Pure: the autoscaler reads the pages, keeps the state and acts.
 */

export interface HpaRulePolicy {
  readonly min: number;
  readonly max: number;
  /** Waiting requests per replica (AverageValue); undefined: no queue trigger. */
  readonly queue?: number | undefined;
  /** Mean KV-cache usage, 0..1 (Value); undefined: no kv trigger. */
  readonly kv?: number | undefined;
  /** behavior.scaleDown.stabilizationWindowSeconds, in ms. */
  readonly downStabilizationMs: number;
}

export interface HpaStep {
  readonly decision: ScaleDecision;
  /** The HPA's state after the sync, for the next one. */
  readonly state: HpaState;
}

/** One sync at `nowMs` on `sample`; with no instance read (KEDA's query failing), the HPA holds. */
export function decideHpa(
  sample: FleetSample,
  counts: FleetCounts,
  state: HpaState,
  policy: HpaRulePolicy,
  nowMs: number,
): HpaStep {
  const planned = counts.serving + counts.arriving;
  if (sample.serving.length === 0) {
    return {
      state,
      decision: { action: "hold", reason: `hpa: no instance's metrics read: holds at ${planned}` },
    };
  }
  const triggers = hpaTriggers(sample, policy);
  const next = hpaSyncMetrics(
    { ...state, replicas: planned },
    triggers.map(({ metric }) => metric),
    nowMs,
    policy,
  );
  // The last recommendation is this sync's desired count, before stabilization and the rate limit.
  const desired = next.recommendations[next.recommendations.length - 1]?.replicas ?? next.replicas;
  const figures = `hpa: ${triggers.map(({ words }) => words).join("; ")}`;
  return { state: next, decision: decision(figures, planned, next.replicas, desired, policy) };
}

/** The step from `planned` to the HPA's `replicas`, saying what held it from `desired`. */
function decision(
  figures: string,
  planned: number,
  replicas: number,
  desired: number,
  policy: HpaRulePolicy,
): ScaleDecision {
  const change = `${figures}: ${planned} → ${replicas}`;
  const window = `the highest recommendation of the last ${policy.downStabilizationMs / 1000} s`;
  if (replicas > planned) {
    const limited = desired > replicas ? ` (wants ${desired}; at most max(2x, +4) per sync)` : "";
    return { action: "up", add: replicas - planned, reason: `${change}${limited}` };
  }
  if (replicas < planned) {
    const held = desired < replicas ? ` (wants ${desired}; ${window})` : "";
    return { action: "down", remove: planned - replicas, reason: `${change}${held}` };
  }
  const held = desired < planned ? `wants ${desired}, held by ${window}: ` : "";
  return { action: "hold", reason: `${figures}: ${held}holds at ${planned}` };
}

/** Each trigger's metric, as KEDA reads it, and its figures in words. */
function hpaTriggers(sample: FleetSample, policy: HpaRulePolicy): { metric: HpaMetric; words: string }[] {
  const triggers: { metric: HpaMetric; words: string }[] = [];
  if (policy.queue !== undefined) {
    const total = totalWaiting(sample);
    triggers.push({
      metric: { type: "AverageValue", total, target: policy.queue },
      words: `${total} waiting in all, target ${policy.queue} per instance`,
    });
  }
  if (policy.kv !== undefined) {
    // KEDA's prometheus scaler reads an empty answer as 0 (its ignoreNullValues, on by default).
    const kv = meanKv(sample);
    triggers.push({
      metric: { type: "Value", value: kv ?? 0, target: policy.kv, ready: sample.serving.length },
      words: `KV usage ${kv === null ? "unknown (0)" : percent(kv)} on average, target ${percent(policy.kv)}`,
    });
  }
  return triggers;
}

function percent(share: number): string {
  return `${Math.round(share * 100)}%`;
}
