import { loraModuleArgument } from "../internal/lora-modules.js";
import type { ServeOptions } from "../serve-options.js";
import {
  type NormalizedStack,
  normalizeStackOptions,
  STARTUP_PROBE_PERIOD_SECONDS,
} from "./normalize-stack.js";
import type { StackModelSpec, StackOptions, StackValues } from "./stack-options.js";

/** The volume name for storage the chart does not create (its own claim is mounted by the chart). */
const STORAGE_VOLUME = "model-weights";

/**
 * Builds values for vLLM production-stack's `vllm-stack` Helm chart (version `VLLM_STACK_CHART.version`)
 * that serve the same configuration `buildServeCommand` takes, on Kubernetes: one `modelSpec` entry, the
 * router in front, and for runtime adapter loading the chart's LoRA controller. Only keys the chart defines,
 * with the types its schema gives. The API key is only ever a reference to a Secret. Pure; throws a
 * `ServeConfigError` for bad input.
 *
 * @example
 * buildStackValues(
 *   { kind: "full", model: "acme/support-llama-8b", servedModelName: "support" },
 *   { replicas: 2, image: "vllm/vllm-openai:v0.11.0" },
 * ).servingEngineSpec.modelSpec[0];
 * // { name: "support", repository: "vllm/vllm-openai", tag: "v0.11.0", modelURL: "acme/support-llama-8b",
 * //   replicaCount: 2, ..., vllmConfig: { enablePrefixCaching: true, extraArgs: ["--served-model-name", "support"] } }
 */
export function buildStackValues(config: ServeOptions, options: StackOptions = {}): StackValues {
  return stackValues(normalizeStackOptions(config, options));
}

export function stackValues(stack: NormalizedStack): StackValues {
  const values: StackValues = {
    servingEngineSpec: {
      enableEngine: true,
      ...(stack.apiKeySecret === undefined
        ? {}
        : { vllmApiKey: { secretName: stack.apiKeySecret.name, secretKey: stack.apiKeySecret.key } }),
      startupProbe: {
        periodSeconds: STARTUP_PROBE_PERIOD_SECONDS,
        failureThreshold: Math.ceil(stack.startupTimeoutSeconds / STARTUP_PROBE_PERIOD_SECONDS),
      },
      modelSpec: [modelSpec(stack)],
    },
    routerSpec: {
      enableRouter: true,
      routingLogic: stack.routingLogic,
      ...(stack.sessionKey === undefined ? {} : { sessionKey: stack.sessionKey }),
    },
  };
  if (runtimeLoading(stack)) values.loraController = { enableLoraController: true };
  return values;
}

export function runtimeLoading(stack: NormalizedStack): boolean {
  return stack.serve.kind === "lora" && stack.adapterLoading === "runtime";
}

function modelSpec(stack: NormalizedStack): StackModelSpec {
  const { serve } = stack;
  const spec: StackModelSpec = {
    name: stack.name,
    repository: stack.repository,
    tag: stack.tag,
    modelURL: serve.kind === "full" ? serve.model : serve.baseModel,
    replicaCount: stack.replicas,
    requestCPU: stack.cpu,
    requestMemory: stack.memory,
    requestGPU: stack.gpusPerReplica,
    enableLoRA: serve.kind === "lora",
    vllmConfig: {
      // The chart writes --no-enable-prefix-caching unless this is true, unlike vLLM's own default.
      enablePrefixCaching: stack.prefixCaching,
      ...(stack.maxModelLen === undefined ? {} : { maxModelLen: stack.maxModelLen }),
      ...(stack.dtype === undefined ? {} : { dtype: stack.dtype }),
      ...(serve.kind === "lora" && serve.maxLoras !== undefined ? { maxLoras: serve.maxLoras } : {}),
      // Several GPUs in a pod only help when the model is sharded across them.
      ...(stack.gpusPerReplica > 1 ? { tensorParallelSize: stack.gpusPerReplica } : {}),
      extraArgs: engineArguments(stack),
    },
  };
  if (stack.hfTokenSecret !== undefined) {
    spec.hf_token = { secretName: stack.hfTokenSecret.name, secretKey: stack.hfTokenSecret.key };
  }
  if (runtimeLoading(stack)) spec.env = [{ name: "VLLM_ALLOW_RUNTIME_LORA_UPDATING", value: "True" }];
  if (stack.runtimeClassName !== undefined) spec.runtimeClassName = stack.runtimeClassName;
  Object.assign(spec, storageValues(stack));
  return spec;
}

/**
 * What follows the chart's own `vllm serve <model> --host --port ...`: the served name, the adapters (static
 * loading) and their rank, then the configuration's extra arguments.
 */
function engineArguments(stack: NormalizedStack): string[] {
  const { serve } = stack;
  if (serve.kind === "full") {
    const name = serve.servedModelName === undefined ? [] : ["--served-model-name", serve.servedModelName];
    return [...name, ...serve.extraArgs];
  }
  const modules =
    stack.adapterLoading === "static" ? ["--lora-modules", ...serve.adapters.map(loraModuleArgument)] : [];
  const rank = serve.maxLoraRank === undefined ? [] : ["--max-lora-rank", String(serve.maxLoraRank)];
  return [...modules, ...rank, ...serve.extraArgs];
}

function storageValues(stack: NormalizedStack): Partial<StackModelSpec> {
  const { storage } = stack;
  if (storage === undefined) return {};
  if (storage.kind === "pvc") {
    return {
      pvcStorage: storage.size,
      pvcAccessMode: [storage.accessMode ?? "ReadWriteOnce"],
      ...(storage.storageClass === undefined ? {} : { storageClass: storage.storageClass }),
    };
  }
  const source =
    storage.kind === "claim"
      ? { persistentVolumeClaim: { claimName: storage.claimName, readOnly: true } }
      : { hostPath: { path: storage.path, type: "Directory" } };
  const mountPath = storage.kind === "claim" ? storage.mountPath : storage.path;
  return {
    extraVolumes: [{ name: STORAGE_VOLUME, ...source }],
    extraVolumeMounts: [{ name: STORAGE_VOLUME, mountPath, readOnly: true }],
  };
}
