/**
 * The Kubernetes HorizontalPodAutoscaler's replica rule, as KEDA's prometheus scaler drives it with an
 * AverageValue target, so a bench can play production-stack's KEDA policy on the same stand-in as ours.
 * It follows the HPA controller (kubernetes pkg/controller/podautoscaler): a desired count of
 * ceil(total / target) unless the usage ratio is within the tolerance (0.1) of 1; scale-down stabilised
 * to the highest recommendation of the window (300 s by default), scale-up immediate; at most
 * max(double, +4) up per sync period (15 s). KEDA's cooldownPeriod applies only to scaling to and from
 * zero, so with a minimum of one or more it plays no part here.
 */

export interface HpaPolicy {
  readonly min: number;
  readonly max: number;
  /** The AverageValue target: the metric's total per replica the HPA aims at. */
  readonly target: number;
  /** The HPA's sync period (kube-controller-manager's --horizontal-pod-autoscaler-sync-period). */
  readonly syncMs?: number;
  /** behavior.scaleDown.stabilizationWindowSeconds, in ms. */
  readonly downStabilizationMs?: number;
  /** --horizontal-pod-autoscaler-tolerance. */
  readonly tolerance?: number;
}

export interface HpaState {
  readonly replicas: number;
  /** The desired counts of the past syncs still inside the stabilization window. */
  readonly recommendations: readonly { readonly timeMs: number; readonly replicas: number }[];
}

export const HPA_DEFAULTS = { syncMs: 15_000, downStabilizationMs: 300_000, tolerance: 0.1 } as const;

/** The HPA's state after one sync at `nowMs`, where the metric's total (over every replica) is `total`. */
export function hpaSync(state: HpaState, total: number, nowMs: number, policy: HpaPolicy): HpaState {
  const downWindowMs = policy.downStabilizationMs ?? HPA_DEFAULTS.downStabilizationMs;
  const desired = clamp(desiredReplicas(state.replicas, total, policy), policy);
  const recommendations = [
    ...state.recommendations.filter((one) => one.timeMs > nowMs - downWindowMs),
    { timeMs: nowMs, replicas: desired },
  ];
  // Scale-down takes the highest recommendation of the window; scale-up (a window of 0) the current one.
  const downRecommendation = Math.max(...recommendations.map((one) => one.replicas));
  const stabilized = desired > state.replicas ? desired : Math.min(state.replicas, downRecommendation);
  return { replicas: clamp(limitRate(state.replicas, stabilized), policy), recommendations };
}

/** ceil(total / target), or the current count while usage is within the tolerance of the target. */
function desiredReplicas(current: number, total: number, policy: HpaPolicy): number {
  const tolerance = policy.tolerance ?? HPA_DEFAULTS.tolerance;
  const ratio = total / (policy.target * current);
  if (Math.abs(1 - ratio) <= tolerance) return current;
  return Math.ceil(total / policy.target);
}

/** The default scale-up policies: 100% or 4 pods per period, whichever is more; scale-down 100%. */
function limitRate(current: number, wanted: number): number {
  return Math.min(wanted, Math.max(2 * current, current + 4));
}

function clamp(replicas: number, policy: HpaPolicy): number {
  return Math.min(policy.max, Math.max(policy.min, replicas));
}
