/**
 * The Kubernetes HorizontalPodAutoscaler's replica rule, as KEDA's prometheus scaler drives it with an
 * AverageValue target, so a bench can play production-stack's KEDA policy on the same stand-in as ours.
 * It follows the HPA controller (kubernetes pkg/controller/podautoscaler): a desired count of
 * ceil(total / target) unless the usage ratio is within the tolerance (0.1) of 1; scale-down stabilised
 * to the highest recommendation of the window (300 s by default), scale-up immediate; at most
 * max(double, +4) up per sync period (15 s). KEDA's cooldownPeriod applies only to scaling to and from
 * zero, so with a minimum of one or more it plays no part here. With several metrics (several KEDA triggers)
 * the desired count is the largest of each metric's (computeReplicasForMetrics).
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

/**
 * One metric as KEDA hands it to the HPA, by its target type (ScaledObject `metricType`):
 * - `AverageValue`: the query's total over every replica, against a target per replica;
 * - `Value`: the query's number as it is (an average, say), against the target as it is; the HPA then
 *   scales the ready replicas by their ratio.
 */
export type HpaMetric =
  | { readonly type: "AverageValue"; readonly total: number; readonly target: number }
  | { readonly type: "Value"; readonly value: number; readonly target: number; readonly ready: number };

export const HPA_DEFAULTS = { syncMs: 15_000, downStabilizationMs: 300_000, tolerance: 0.1 } as const;

/** The HPA's state after one sync at `nowMs`, where the metric's total (over every replica) is `total`. */
export function hpaSync(state: HpaState, total: number, nowMs: number, policy: HpaPolicy): HpaState {
  return hpaSyncMetrics(state, [{ type: "AverageValue", total, target: policy.target }], nowMs, policy);
}

/** hpaSync with several metrics: the desired count is the largest of each metric's (none: the current). */
export function hpaSyncMetrics(
  state: HpaState,
  metrics: readonly HpaMetric[],
  nowMs: number,
  policy: Omit<HpaPolicy, "target">,
): HpaState {
  const downWindowMs = policy.downStabilizationMs ?? HPA_DEFAULTS.downStabilizationMs;
  const tolerance = policy.tolerance ?? HPA_DEFAULTS.tolerance;
  const proposals = metrics.map((metric) => desiredReplicas(state.replicas, metric, tolerance));
  const desired = clamp(metrics.length === 0 ? state.replicas : Math.max(...proposals), policy);
  const recommendations = [
    ...state.recommendations.filter((one) => one.timeMs > nowMs - downWindowMs),
    { timeMs: nowMs, replicas: desired },
  ];
  // Scale-down takes the highest recommendation of the window; scale-up (a window of 0) the current one.
  const downRecommendation = Math.max(...recommendations.map((one) => one.replicas));
  const stabilized = desired > state.replicas ? desired : Math.min(state.replicas, downRecommendation);
  return { replicas: clamp(limitRate(state.replicas, stabilized), policy), recommendations };
}

/**
 * One metric's count, or the current count while its usage is within the tolerance of the target:
 * AverageValue ceil(total / target) (GetExternalPerPodMetricReplicas), Value ceil(value / target x ready)
 * (GetExternalMetricReplicas).
 */
function desiredReplicas(current: number, metric: HpaMetric, tolerance: number): number {
  const ratio =
    metric.type === "AverageValue" ? metric.total / (metric.target * current) : metric.value / metric.target;
  if (Math.abs(1 - ratio) <= tolerance) return current;
  return metric.type === "AverageValue"
    ? Math.ceil(metric.total / metric.target)
    : Math.ceil(ratio * metric.ready);
}

/** The default scale-up policies: 100% or 4 pods per period, whichever is more; scale-down 100%. */
function limitRate(current: number, wanted: number): number {
  return Math.min(wanted, hpaScaleUpLimit(current));
}

/** The most replicas the HPA's default scale-up policies reach from `current` in one period: max(2x, +4). */
export function hpaScaleUpLimit(current: number): number {
  return Math.max(2 * current, current + 4);
}

function clamp(replicas: number, policy: Pick<HpaPolicy, "min" | "max">): number {
  return Math.min(policy.max, Math.max(policy.min, replicas));
}
