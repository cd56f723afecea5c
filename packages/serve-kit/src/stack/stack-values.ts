import { loraModuleArgument } from "../internal/lora-modules.js";
import { ENGINE_OPTION_LIST, engineArguments, type LoraEngineOptions } from "../options/engine-options.js";
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
      ...(stack.sessionHeader === undefined ? {} : { sessionKey: stack.sessionHeader }),
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
    repository: stack.image.repository,
    tag: stack.image.tag,
    modelURL: serve.kind === "full" ? serve.model : serve.baseModel,
    // With a range, KEDA takes it from there: the chart starts MIN pods.
    replicaCount: stack.replicas.min,
    requestCPU: stack.cpu,
    requestMemory: stack.memory,
    requestGPU: stack.gpusPerReplica,
    enableLoRA: serve.kind === "lora",
    vllmConfig: {
      // The chart writes --no-enable-prefix-caching unless this is true, unlike vLLM's own default.
      enablePrefixCaching: stack.engine.enablePrefixCaching ?? true,
      ...chartKeys(stack.engine),
      extraArgs: extraArguments(stack),
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

/** Each engine option with a chart key, under that key (the chart writes the flag). */
function chartKeys(engine: LoraEngineOptions): Partial<StackModelSpec["vllmConfig"]> {
  const keys: Record<string, unknown> = {};
  for (const option of ENGINE_OPTION_LIST) {
    const value = engine[option.key];
    if (option.stackKey !== null && value !== undefined) keys[option.stackKey] = value;
  }
  return keys;
}

/**
 * What follows the chart's own `vllm serve <model> --host --port ...`: the served name, the adapters (static
 * loading), the engine options the chart has no key for, then the configuration's extra arguments.
 */
function extraArguments(stack: NormalizedStack): string[] {
  const { serve, engine } = stack;
  const name = serve.servedModelName === undefined ? [] : ["--served-model-name", serve.servedModelName];
  const modules =
    serve.kind === "lora" && stack.adapterLoading === "static"
      ? ["--lora-modules", ...serve.adapters.map(loraModuleArgument)]
      : [];
  const unkeyed = ENGINE_OPTION_LIST.filter((option) => option.stackKey === null).map((option) => option.key);
  const rest = engineArguments(Object.fromEntries(unkeyed.map((key) => [key, engine[key]])));
  return [...name, ...modules, ...rest, ...serve.extraArgs];
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
