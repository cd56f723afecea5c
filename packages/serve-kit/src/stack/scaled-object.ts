import { VLLM_METRICS } from "../monitoring/vllm-metric-names.js";
import type { ServeOptions } from "../serve-options.js";
import { chartEngineDeployment } from "./chart.js";
import { type NormalizedStack, normalizeStackOptions } from "./normalize-stack.js";
import type { StackOptions } from "./stack-options.js";

// KEDA autoscaling for the chart's engine Deployment, as a ScaledObject of its own: the chart (0.1.12) can
// render one, but its values schema types `keda.triggers` as an object where KEDA wants a list, so no custom
// trigger passes it, and its default query, `vllm:num_requests_waiting{model="<name>"}`, matches no series
// (vLLM labels its series `model_name`). So the resource is written beside values.yaml and applied after it.

/** One KEDA trigger: the `prometheus` scaler, with the query and the threshold its metric type expects. */
export interface ScaledObjectTrigger {
  type: "prometheus";
  /** The signal it reads, for `kubectl describe` and KEDA's metric names. */
  name: "queue" | "kv";
  /**
   * KEDA's metric types (the HPA's target types): with `AverageValue` the HPA divides the query's one number
   * by the replicas, so the query is a sum; with `Value` it compares the number as it is, so an average.
   */
  metricType: "AverageValue" | "Value";
  metadata: { serverAddress: string; query: string; threshold: string };
}

/** A KEDA `ScaledObject` (keda.sh/v1alpha1) for the engines. */
export interface StackScaledObject {
  apiVersion: "keda.sh/v1alpha1";
  kind: "ScaledObject";
  metadata: { name: string; namespace?: string; labels: Record<string, string> };
  spec: {
    scaleTargetRef: { apiVersion: "apps/v1"; kind: "Deployment"; name: string };
    minReplicaCount: number;
    maxReplicaCount: number;
    pollingInterval: number;
    cooldownPeriod: number;
    advanced: {
      horizontalPodAutoscalerConfig: {
        behavior: { scaleDown: { stabilizationWindowSeconds: number } };
      };
    };
    triggers: ScaledObjectTrigger[];
  };
}

/**
 * How often KEDA asks Prometheus, in seconds: production-stack's value, and the HPA's own sync period (15 s):
 * asking more often gives the HPA nothing new, while each engine's series is scraped every 15-30 s anyway.
 */
export const KEDA_POLLING_INTERVAL_SECONDS = 15;
/**
 * KEDA's cooldownPeriod paces only the step from 1 replica to 0, which a MIN of 1 or more never takes (the
 * HPA's scale-down window paces the rest); set to production-stack's 360 s so a MIN of 0 added by hand later
 * would not drop the last engine after KEDA's default 300 s of quiet.
 */
export const KEDA_COOLDOWN_PERIOD_SECONDS = 360;

/**
 * The KEDA ScaledObject that scales the chart's engine Deployment between the range's ends on vLLM's own
 * signals for this model, or undefined when the replicas are fixed. Pure; throws a `ServeConfigError` for
 * bad input.
 */
export function buildStackScaledObject(
  config: ServeOptions,
  options: StackOptions = {},
): StackScaledObject | undefined {
  return stackScaledObject(normalizeStackOptions(config, options));
}

export function stackScaledObject(stack: NormalizedStack): StackScaledObject | undefined {
  const { replicas, scaleOn, prometheusUrl, scaleDownAfterSeconds } = stack;
  if (scaleOn === undefined || prometheusUrl === undefined || scaleDownAfterSeconds === undefined)
    return undefined;
  return {
    apiVersion: "keda.sh/v1alpha1",
    kind: "ScaledObject",
    metadata: {
      name: `${stack.release}-${stack.name}-autoscaler`,
      ...(stack.namespace === undefined ? {} : { namespace: stack.namespace }),
      labels: { model: stack.name, "helm-release-name": stack.release },
    },
    spec: {
      scaleTargetRef: {
        apiVersion: "apps/v1",
        kind: "Deployment",
        name: chartEngineDeployment(stack.release, stack.name),
      },
      minReplicaCount: replicas.min,
      maxReplicaCount: replicas.max,
      pollingInterval: KEDA_POLLING_INTERVAL_SECONDS,
      cooldownPeriod: KEDA_COOLDOWN_PERIOD_SECONDS,
      advanced: {
        horizontalPodAutoscalerConfig: {
          behavior: { scaleDown: { stabilizationWindowSeconds: scaleDownAfterSeconds } },
        },
      },
      triggers: triggers(servedName(stack), scaleOn, prometheusUrl),
    },
  };
}

const [WAITING] = VLLM_METRICS.requestsWaiting;
const [KV_V1, KV_V0] = VLLM_METRICS.kvCacheUsage;

/** The `model_name` label vLLM gives its series: the first served name, else the model as given. */
function servedName(stack: NormalizedStack): string {
  const { serve } = stack;
  return serve.servedModelName ?? (serve.kind === "full" ? serve.model : serve.baseModel);
}

function triggers(
  model: string,
  signals: NonNullable<NormalizedStack["scaleOn"]>,
  serverAddress: string,
): ScaledObjectTrigger[] {
  // A PromQL string literal: Go's escapes, which JSON's quoting of a string also is.
  const selector = `{model_name=${JSON.stringify(model)}}`;
  const list: ScaledObjectTrigger[] = [];
  if (signals.queue !== undefined) {
    // The HPA wants ceil(total waiting / N) replicas: a sum, divided by the replicas (AverageValue).
    list.push({
      type: "prometheus",
      name: "queue",
      metricType: "AverageValue",
      metadata: {
        serverAddress,
        query: `sum(${WAITING}${selector})`,
        threshold: String(signals.queue),
      },
    });
  }
  if (signals.kv !== undefined) {
    // The engines' mean KV usage against F as it is (Value): V1 names it kv_cache_usage_perc, V0 gpu_cache_usage_perc.
    list.push({
      type: "prometheus",
      name: "kv",
      metricType: "Value",
      metadata: {
        serverAddress,
        query: `avg(${KV_V1}${selector}) or avg(${KV_V0}${selector})`,
        threshold: String(signals.kv),
      },
    });
  }
  return list;
}
