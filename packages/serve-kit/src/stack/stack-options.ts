import type { ScaleSignals, ScalingRange } from "../autoscale/index.js";
import type { EngineOptionValues, StackVllmConfigKey, VllmDtype } from "../options/engine-options.js";
/** A key in a Kubernetes Secret: the chart and the LoRA controller read the value from there, never from values. */
export interface SecretKeyReference {
  /** The Secret's name (a DNS subdomain: lower-case letters, digits, `-` and `.`). */
  name: string;
  /** The key inside the Secret (letters, digits, `-`, `_` and `.`). */
  key: string;
}

/**
 * Where the pods find local weights. A cluster cannot see your machine's disk: a local path in the serve
 * configuration must sit under the directory one of these mounts, or the pods would not find it.
 */
export type StackStorage =
  | {
      /** A claim the chart creates for each model, mounted at `/data`; the Hugging Face cache lives there too. */
      kind: "pvc";
      /** Its size, a Kubernetes quantity such as `50Gi`. */
      size: string;
      /** The storage class; the cluster's default without it. */
      storageClass?: string;
      /**
       * `ReadWriteOnce` by default for one replica, `ReadWriteMany` for more (replicas on several nodes must
       * all mount it; the storage class has to support that).
       */
      accessMode?: "ReadWriteOnce" | "ReadWriteMany";
    }
  | {
      /** A claim you already filled with the weights, mounted read-only at `mountPath`. */
      kind: "claim";
      claimName: string;
      /** An absolute directory in the container; the configuration's local paths sit under it. */
      mountPath: string;
    }
  | {
      /** A directory present on every GPU node (an NFS mount, say), mounted read-only at the same path. */
      kind: "hostPath";
      path: string;
    };

/** vLLM's `--dtype` choices (declared with the engine options). */
export type StackDtype = VllmDtype;

/**
 * The router's ways of picking an engine that `routing` maps to. (The chart also knows `kvaware` and the
 * disaggregated-prefill modes, which need LMCache configured on the engines.)
 */
export type StackRoutingLogic = "roundrobin" | "session" | "prefixaware";

/**
 * How production-stack's router picks an engine, in the words `launch` uses where they mean the same:
 * `round-robin` (its `roundrobin`: each engine in turn), `session` (its `session` logic: one engine per
 * session header value, the engine with the lowest request rate for a request without one) or `prefix`
 * (its `prefixaware` logic: the engine that served the longest matching prompt prefix). It has no
 * least-busy logic (none counts open requests), so `least-busy` is refused.
 */
export type StackRouting = "round-robin" | "session" | "prefix";

/** How the adapters of a LoRA serve reach the engines. */
export type StackAdapterLoading =
  /** `--lora-modules` on every engine, as the local command does: fixed until the next rollout. */
  | "static"
  /**
   * The chart's LoRA controller loads each `LoraAdapter` resource through vLLM's runtime endpoints, so
   * adapters come and go without a restart. Needs an API key: those endpoints load any path they are given.
   */
  | "runtime";

/** How to run a serve configuration on Kubernetes with the `vllm-stack` chart. Everything is optional. */
export interface StackOptions {
  /**
   * The model's name in the chart: it names the Deployment, labels the pods and is what a `LoraAdapter`'s
   * `baseModel` points at. A DNS label (lower-case letters, digits, `-`); by default made from the served
   * model name (full) or the base model (LoRA).
   */
  name?: string;
  /** The Helm release name, `vllm` by default: used in the commands and to keep pod host names within 63 characters. */
  release?: string;
  /** The namespace to install into; the commands add `--namespace` only when it is given. */
  namespace?: string;
  /** The vLLM image, `repository:tag`; `vllm/vllm-openai:latest` by default (pin a tag in production). */
  image?: string;
  /**
   * Engine pods, 1 by default; a range `{ min, max }` (min at least 1) scales them with KEDA on vLLM's own
   * signals: `buildStackScaledObject` writes the ScaledObject, which the chart cannot carry.
   */
  replicas?: number | ScalingRange;
  /**
   * With a range: the thresholds past which KEDA adds a pod, waiting requests per pod (`queue`) or the KV
   * cache's mean usage (`kv`, 0 to 1); `{ queue: 5, kv: 0.8 }` by default (see `DEFAULT_SCALE_SIGNALS`).
   */
  scaleOn?: ScaleSignals;
  /** With a range: the Prometheus KEDA asks, `http://prometheus-operated.monitoring.svc:9090` by default. */
  prometheusUrl?: string;
  /** With a range: how long the load stays low before a pod goes (the HPA's scale-down window), 300 by default. */
  scaleDownAfterSeconds?: number;
  /** GPUs per engine pod, 1 by default; more than one shards the model across them (tensor parallelism). */
  gpusPerReplica?: number;
  /** CPUs requested per engine pod, an integer, 8 by default. */
  cpu?: number;
  /** Memory requested per engine pod, a Kubernetes quantity, `32Gi` by default. */
  memory?: string;
  /** vLLM's `--max-model-len`. */
  maxModelLen?: number;
  /** vLLM's `--dtype`. */
  dtype?: StackDtype;
  /** Prefix caching, on by default as in vLLM (the chart turns it off unless it is asked for). */
  prefixCaching?: boolean;
  /** The Secret holding the key clients send; required when the configuration has an `apiKey`. */
  apiKeySecret?: SecretKeyReference;
  /** The Secret holding a Hugging Face token, for gated or private repositories. */
  hfTokenSecret?: SecretKeyReference;
  storage?: StackStorage;
  /** LoRA only: `static` by default. */
  adapterLoading?: StackAdapterLoading;
  /** How the router picks an engine: `round-robin` by default, `session` or `prefix` (see `StackRouting`). */
  routing?: StackRouting;
  /** The request header that names a session, with `session` routing. Default `x-session-id`. */
  sessionHeader?: string;
  /** The pods' runtime class; the chart's default (`nvidia`) without it. Give `""` for the cluster default. */
  runtimeClassName?: string;
  /** How long an engine may take to start (download and load the weights) before Kubernetes restarts it; 1800 s by default. */
  startupTimeoutSeconds?: number;
}

/** A Secret reference as the chart writes it. */
export interface ChartSecretReference {
  secretName: string;
  secretKey: string;
}

/** One entry of `servingEngineSpec.modelSpec`, with only the keys these builders write. */
export interface StackModelSpec {
  name: string;
  repository: string;
  tag: string;
  modelURL: string;
  replicaCount: number;
  requestCPU: number;
  requestMemory: string;
  requestGPU: number;
  enableLoRA: boolean;
  /** The engine options with a chart key (serve-kit's `ENGINE_OPTIONS`), and the arguments the chart has none for. */
  vllmConfig: Partial<Pick<EngineOptionValues, StackVllmConfigKey>> & {
    enablePrefixCaching: boolean;
    extraArgs: string[];
  };
  hf_token?: ChartSecretReference;
  env?: { name: string; value: string }[];
  runtimeClassName?: string;
  pvcStorage?: string;
  pvcAccessMode?: string[];
  storageClass?: string;
  extraVolumes?: Record<string, unknown>[];
  extraVolumeMounts?: { name: string; mountPath: string; readOnly: boolean }[];
}

/** Values for the `vllm-stack` chart: plain data, ready for `helm install -f`. */
export interface StackValues {
  servingEngineSpec: {
    enableEngine: true;
    vllmApiKey?: ChartSecretReference;
    startupProbe: { periodSeconds: number; failureThreshold: number };
    modelSpec: StackModelSpec[];
  };
  routerSpec: {
    enableRouter: true;
    routingLogic: StackRoutingLogic;
    sessionKey?: string;
  };
  loraController?: { enableLoraController: true };
}

/** A `LoraAdapter` resource (`production-stack.vllm.ai/v1alpha1`) for the chart's LoRA controller. */
export interface LoraAdapterResource {
  apiVersion: "production-stack.vllm.ai/v1alpha1";
  kind: "LoraAdapter";
  metadata: { name: string; namespace?: string };
  spec: {
    /** The chart model name the adapter goes on (the pods' `model` label), not the hub id. */
    baseModel: string;
    vllmApiKey?: ChartSecretReference;
    adapterSource:
      | { type: "local"; adapterName: string; adapterPath: string }
      | {
          type: "huggingface";
          adapterName: string;
          repository: string;
          /** The Secret with the hub token (`hfTokenSecret`), which the controller downloads with. */
          credentialsSecretRef: { name: string; key: string };
        };
    loraAdapterDeploymentConfig: { algorithm: "default" };
  };
}
