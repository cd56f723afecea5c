// The vLLM production-stack Helm chart these builders write values for. Its keys and their types were read
// from the chart's values.yaml and values.schema.json at this version (vllm-project/production-stack, helm/).

/** The chart this package's values are written for, and where Helm finds it. */
export const VLLM_STACK_CHART = {
  /** The chart's name in its repository. */
  name: "vllm-stack",
  /** The chart version the values were checked against; `helm install` pins it. */
  version: "0.1.12",
  /** The Helm repository the project publishes the chart to. */
  repositoryUrl: "https://vllm-project.github.io/production-stack",
  /** The local name `helm repo add` gives that repository. */
  repositoryName: "vllm",
} as const;

/** The group and version of the chart's `LoraAdapter` custom resource. */
export const LORA_ADAPTER_API_VERSION = "production-stack.vllm.ai/v1alpha1";

/** Where the chart mounts a model's own claim (`pvcStorage`) in the vLLM container; HF_HOME points there too. */
export const CHART_PVC_MOUNT_PATH = "/data";

/**
 * The longest suffix the chart puts after `<release>-<model name>` in a name Kubernetes holds to a DNS label
 * of at most 63 characters: the engine's Service, `<release>-<name>-engine-service` (the pods' host name,
 * `<release>-<name>-vllm-stack`, is shorter).
 */
export const CHART_LONGEST_SUFFIX = "-engine-service";

/**
 * The engine Deployment the chart makes for a model: `<release>-<name>-deployment-vllm`
 * (helm/templates/deployment-vllm-multi.yaml); rollouts and the KEDA ScaledObject target it.
 */
export function chartEngineDeployment(release: string, name: string): string {
  return `${release}-${name}-deployment-vllm`;
}
