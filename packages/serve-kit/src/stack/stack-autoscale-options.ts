import { isElastic, parseDuration } from "../autoscale/index.js";
import { checkPositiveInteger, refuse } from "../internal/validate.js";
import type { StackContext } from "./stack-option-types.js";

// The rules and defaults of the stack's autoscaling options (KEDA's, with a range of replicas).

/** An autoscaling option: only with a range of replicas, where KEDA has something to scale. */
export function whenElastic<V>(check: (value: unknown, field: string) => V) {
  return (given: unknown, field: string, context: StackContext): V => {
    const range = context.checked.replicas;
    if (range === undefined || !isElastic(range)) {
      refuse(field, "applies with a range of replicas (MIN..MAX) only, which KEDA scales", given);
    }
    return check(given, field);
  };
}
export const ifElastic =
  <V>(fallback: V) =>
  (context: StackContext): V | undefined =>
    context.checked.replicas !== undefined && isElastic(context.checked.replicas) ? fallback : undefined;

/** The Prometheus KEDA asks when none is given: the one production-stack's chart and kube-prometheus-stack name. */
export const DEFAULT_PROMETHEUS_URL = "http://prometheus-operated.monitoring.svc:9090";

/**
 * The HPA's largest scale-down stabilization window: Kubernetes refuses a longer one (autoscaling/v2
 * validation: "must be less than or equal to 3600"), and KEDA then makes no HPA at all (kedacore/keda#4976).
 */
const HPA_MAX_STABILIZATION_SECONDS = 3600;

export function checkScaleDownWindow(given: unknown, field: string): number {
  const seconds =
    typeof given === "string" ? parseDuration(given, field) : checkPositiveInteger(given, field);
  if (seconds > HPA_MAX_STABILIZATION_SECONDS) {
    refuse(
      field,
      "must be at most 1h: Kubernetes refuses a longer scale-down window for the HPA KEDA makes",
      given,
    );
  }
  return seconds;
}
