import {
  checkScaleSignals,
  checkScalingRange,
  DEFAULT_SCALE_DOWN_AFTER_SECONDS,
  DEFAULT_SCALE_SIGNALS,
  durationText,
  parseScaleSignals,
  parseScalingRange,
  scaleSignalsText,
} from "../autoscale/index.js";
import { DEFAULT_VLLM_IMAGE } from "../docker-command.js";
import type { NormalizedServe } from "../internal/normalize.js";
import { checkPositiveInteger, oneOf, refuse } from "../internal/validate.js";
import { ENGINE_OPTIONS } from "../options/engine-options.js";
import { checkSessionHeader, DEFAULT_SESSION_HEADER } from "../routing.js";
import { checkDnsLabel, checkQuantity, dnsLabelFrom } from "./kubernetes-names.js";
import {
  checkScaleDownWindow,
  DEFAULT_PROMETHEUS_URL,
  ifElastic,
  whenElastic,
} from "./stack-autoscale-options.js";
import {
  checkModelName,
  checkPrometheusUrl,
  checkReleaseName,
  checkRuntimeClassName,
  checkSecretReference,
  checkStorage,
  modelNameBudget,
  secretReferenceFromText,
  splitImage,
} from "./stack-checks.js";
import {
  type StackContext,
  type StackDefault,
  type StackOption,
  type StackOptionKey,
  type StackOptionValues,
  stackDefaultText,
} from "./stack-option-types.js";
import type { SecretKeyReference, StackRouting } from "./stack-options.js";

// The stack options, each declared once: its rule, its default, where it goes in what the builders write,
// and its command-line flag and help line. `normalizeStackOptions`, `studio-serve stack`'s parser and its
// `--help` read this table; `stack-option-table.test.ts` walks it and fails when an entry lacks a part.
// Adding an option is a field of `StackOptions` (its documented input type) and an entry here, in the
// order its rule needs (an entry's rule sees the entries above it), then its use in a builder.

/** The production-stack router's logic for each routing `stack` takes (the chart's `routingLogic`). */
export const ROUTING_LOGIC = {
  "round-robin": "roundrobin",
  session: "session",
  prefix: "prefixaware",
} as const;
export const STACK_ROUTINGS = Object.keys(ROUTING_LOGIC) as StackRouting[];

type StackEntry<K extends StackOptionKey> = Omit<StackOption<K>, "help"> & { about: string };

function entry<K extends StackOptionKey>(written: StackEntry<K>): StackOption<K> {
  const { about, ...rest } = written;
  return { ...rest, help: `${about} (${stackDefaultText(written.default)})` };
}

const value = <V>(fallback: V, shown = String(fallback)): StackDefault<V> => ({
  kind: "value",
  value: fallback,
  shown,
});
const none = (means: string): StackDefault<never> => ({ kind: "none", means });
type TextReader = (text: string, field: string) => unknown;
const flag = (name: `--${string}`, valueName: string, fromText?: TextReader) =>
  ({ kind: "flag", flag: name, valueName, ...(fromText === undefined ? {} : { fromText }) }) as const;
const MODEL_SPEC = "servingEngineSpec.modelSpec[]";

/** The Secret a command line's key goes to when only where to read it is given (`--api-key-env`). */
export const DEFAULT_API_KEY_SECRET: SecretKeyReference = { name: "vllm-api-key", key: "VLLM_API_KEY" };
/** The key in a `NAME` Secret given without one: the names vLLM and the hub read. */
const API_KEY_KEY = "VLLM_API_KEY";
const HF_TOKEN_KEY = "HF_TOKEN";

export const STACK_OPTIONS: { readonly [K in StackOptionKey]: StackOption<K> } = {
  release: entry({
    key: "release",
    check: checkReleaseName,
    default: value("vllm"),
    goes: ["commands"],
    example: "serving",
    cli: flag("--release", "R"),
    about: "the Helm release",
  }),
  name: entry({
    key: "name",
    check: (given, field, { checked }) => checkModelName(given, field, checked.release ?? "vllm"),
    default: {
      kind: "derived",
      from: "from the served name or base",
      value: ({ serve, checked }) =>
        dnsLabelFrom(
          serve.kind === "full" ? (serve.servedModelName ?? serve.model) : serve.baseModel,
          modelNameBudget(checked.release ?? "vllm"),
        ),
    },
    goes: [`${MODEL_SPEC}.name`, "commands", "scaledObject.spec.scaleTargetRef.name"],
    example: "support",
    cli: flag("--name", "N"),
    about: "the model's name in the chart",
  }),
  namespace: entry({
    key: "namespace",
    check: (given, field) => checkDnsLabel(given, field),
    default: none("kubectl's current namespace"),
    goes: ["commands", "scaledObject.metadata.namespace"],
    example: "serving",
    cli: flag("--namespace", "NS"),
    about: "install there",
  }),
  image: entry({
    key: "image",
    check: splitImage,
    default: {
      kind: "value",
      value: splitImage(DEFAULT_VLLM_IMAGE, "image"),
      shown: `${DEFAULT_VLLM_IMAGE}; pin a tag`,
    },
    goes: [`${MODEL_SPEC}.repository`, `${MODEL_SPEC}.tag`],
    example: "vllm/vllm-openai:v0.11.0",
    cli: flag("--image", "repo:tag"),
    about: "the vLLM image",
  }),
  replicas: entry({
    key: "replicas",
    check: (given, field) => checkScalingRange(given, field),
    default: value({ min: 1, max: 1 }, "1"),
    goes: [
      `${MODEL_SPEC}.replicaCount`,
      "scaledObject.spec.minReplicaCount",
      "scaledObject.spec.maxReplicaCount",
    ],
    example: { min: 1, max: 3 },
    cli: flag("--replicas", "N|MIN..MAX", parseScalingRange),
    about:
      "engine pods; a range MIN..MAX (MIN >= 1) scales them with KEDA:\nwrites scaledobject.yaml beside values.yaml",
  }),
  scaleOn: entry({
    key: "scaleOn",
    check: whenElastic(checkScaleSignals),
    default: {
      kind: "derived",
      from: `${scaleSignalsText(DEFAULT_SCALE_SIGNALS)} with a range`,
      value: ifElastic({ ...DEFAULT_SCALE_SIGNALS }),
    },
    goes: ["scaledObject.spec.triggers"],
    example: { queue: 3 },
    cli: flag("--scale-on", "queue=N[,kv=F]", parseScaleSignals),
    about:
      "with a range: add a pod past N waiting requests per pod, or past\nF of the KV cache in use on average",
  }),
  prometheusUrl: entry({
    key: "prometheusUrl",
    check: whenElastic(checkPrometheusUrl),
    default: {
      kind: "derived",
      from: `${DEFAULT_PROMETHEUS_URL} with a range`,
      value: ifElastic(DEFAULT_PROMETHEUS_URL),
    },
    goes: ["scaledObject.spec.triggers"],
    example: "http://prometheus.monitoring.svc:9090",
    cli: flag("--prometheus-url", "URL"),
    about: "with a range: the Prometheus that scrapes the engines,\nwhich KEDA asks",
  }),
  scaleDownAfterSeconds: entry({
    key: "scaleDownAfterSeconds",
    check: whenElastic(checkScaleDownWindow),
    default: {
      kind: "derived",
      from: `${durationText(DEFAULT_SCALE_DOWN_AFTER_SECONDS)} with a range`,
      value: ifElastic(DEFAULT_SCALE_DOWN_AFTER_SECONDS),
    },
    goes: [
      "scaledObject.spec.advanced.horizontalPodAutoscalerConfig.behavior.scaleDown.stabilizationWindowSeconds",
    ],
    example: 120,
    cli: flag("--scale-down-after", "DURATION"),
    about: "with a range: how long the load stays low before a pod\ngoes: 15s, 5m, 1h",
  }),
  gpusPerReplica: entry({
    key: "gpusPerReplica",
    check: checkPositiveInteger,
    // A replica's GPUs only help when the model is sharded across them: tensor parallelism requests as many.
    default: {
      kind: "derived",
      from: "--tensor-parallel-size, else 1",
      value: ({ serve }) => serve.engine.tensorParallelSize ?? 1,
    },
    goes: [`${MODEL_SPEC}.requestGPU`, `${MODEL_SPEC}.vllmConfig.tensorParallelSize`],
    example: 2,
    cli: flag("--gpus-per-replica", "G"),
    about: "GPUs per pod; more shards the model across\nthem",
  }),
  cpu: entry({
    key: "cpu",
    check: checkPositiveInteger,
    default: value(8),
    goes: [`${MODEL_SPEC}.requestCPU`],
    example: 4,
    cli: flag("--cpu", "N"),
    about: "CPUs requested per pod",
  }),
  memory: entry({
    key: "memory",
    check: checkQuantity,
    default: value("32Gi"),
    goes: [`${MODEL_SPEC}.requestMemory`],
    example: "64Gi",
    cli: flag("--memory", "Q"),
    about: "memory requested per pod",
  }),
  maxModelLen: entry({
    key: "maxModelLen",
    check: ENGINE_OPTIONS.maxModelLen.check,
    default: none("the serve configuration's"),
    goes: [`${MODEL_SPEC}.vllmConfig.maxModelLen`],
    example: 8192,
    cli: { kind: "engine", flag: "--max-model-len" },
    about: "vLLM's --max-model-len",
  }),
  dtype: entry({
    key: "dtype",
    check: ENGINE_OPTIONS.dtype.check,
    default: none("the serve configuration's"),
    goes: [`${MODEL_SPEC}.vllmConfig.dtype`],
    example: "bfloat16",
    cli: { kind: "engine", flag: "--dtype" },
    about: "vLLM's --dtype",
  }),
  prefixCaching: entry({
    key: "prefixCaching",
    check: ENGINE_OPTIONS.enablePrefixCaching.check,
    default: none("on, as in vLLM"),
    goes: [`${MODEL_SPEC}.vllmConfig.enablePrefixCaching`],
    example: false,
    // Kept from before the engine options: the same as --no-enable-prefix-caching.
    cli: { kind: "switch", flag: "--no-prefix-caching", value: false },
    about: "the same as --no-enable-prefix-caching",
  }),
  apiKeySecret: entry({
    key: "apiKeySecret",
    check: checkSecretReference,
    default: none(
      `none, or ${DEFAULT_API_KEY_SECRET.name}:${DEFAULT_API_KEY_SECRET.key}\nwith --api-key-env or --api-key-file`,
    ),
    goes: ["servingEngineSpec.vllmApiKey", "commands"],
    example: { name: "vllm-api-key", key: "VLLM_API_KEY" },
    cli: flag("--api-key-secret", "NAME[:KEY]", secretReferenceFromText(API_KEY_KEY)),
    about: "the Secret clients' key lives in",
  }),
  hfTokenSecret: entry({
    key: "hfTokenSecret",
    check: checkSecretReference,
    default: none("none"),
    goes: [`${MODEL_SPEC}.hf_token`, "commands"],
    example: { name: "hf-token", key: "HF_TOKEN" },
    cli: flag("--hf-token-secret", "NAME[:KEY]", secretReferenceFromText(HF_TOKEN_KEY)),
    about: `a Hugging Face token for gated repositories; KEY is\n${HF_TOKEN_KEY} unless given`,
  }),
  storage: entry({
    key: "storage",
    check: (given, _field, { checked }) => checkStorage(given, checked.replicas?.max ?? 1),
    default: none("none: only hub repositories"),
    goes: [`${MODEL_SPEC}.pvcStorage`],
    example: { kind: "pvc", size: "50Gi" },
    cli: {
      kind: "flags",
      flags: ["--storage-pvc", "--storage-class", "--access-mode", "--storage-claim", "--storage-host-path"],
    },
    about: "where the pods find local weights",
  }),
  adapterLoading: entry({
    key: "adapterLoading",
    check: (given, field, { serve }) => {
      const loading = oneOf(["static", "runtime"] as const)(given, field);
      if (serve.kind !== "lora") refuse(field, "applies to a LoRA serve only", given);
      return loading;
    },
    default: value("static"),
    goes: [`${MODEL_SPEC}.vllmConfig.extraArgs`, "loraController.enableLoraController"],
    example: "runtime",
    cli: flag("--adapter-loading", "static|runtime"),
    about:
      "static: --lora-modules on every engine; runtime: the chart's\nLoRA controller loads LoraAdapter resources (needs a key)",
  }),
  routing: entry({
    key: "routing",
    check: checkStackRouting,
    default: value("round-robin"),
    goes: ["routerSpec.routingLogic"],
    example: "prefix",
    cli: flag("--routing", STACK_ROUTINGS.join("|")),
    about:
      "how production-stack's router picks an engine: round-robin (its\nroundrobin: in turn), session (one engine per session header, the\nlowest request rate without one) or prefix (its prefixaware logic);\nit has no least-busy logic",
  }),
  sessionHeader: entry({
    key: "sessionHeader",
    check: (given, field, { checked }) => {
      const header = checkSessionHeader(given, field);
      if (checked.routing !== "session") {
        refuse(
          field,
          "applies to routing 'session' only (production-stack's router reads no header otherwise)",
          header,
        );
      }
      return header;
    },
    default: {
      kind: "derived",
      from: DEFAULT_SESSION_HEADER,
      value: ({ checked }) => (checked.routing === "session" ? DEFAULT_SESSION_HEADER : undefined),
    },
    goes: ["routerSpec.sessionKey"],
    example: "x-user",
    cli: flag("--session-header", "NAME"),
    about: "with session routing: the header that names a session",
  }),
  runtimeClassName: entry({
    key: "runtimeClassName",
    check: checkRuntimeClassName,
    default: none("the chart's, nvidia"),
    goes: [`${MODEL_SPEC}.runtimeClassName`],
    example: "nvidia-cdi",
    cli: flag("--runtime-class", "C"),
    about: "the pods' runtime class",
  }),
  startupTimeoutSeconds: entry({
    key: "startupTimeoutSeconds",
    check: checkPositiveInteger,
    default: value(1800),
    goes: ["servingEngineSpec.startupProbe.failureThreshold"],
    example: 600,
    cli: flag("--startup-timeout", "S"),
    about: "seconds an engine may take to load before it is restarted",
  }),
};

/** production-stack's router has no least-busy logic: the word `launch` uses for it is refused, not rotated. */
function checkStackRouting(given: unknown, field: string): StackRouting {
  if (given === "least-busy") {
    refuse(
      field,
      "is not a logic production-stack's router has (no logic there counts open requests): use round-robin (its roundrobin), session or prefix (its prefixaware)",
      given,
    );
  }
  return oneOf(STACK_ROUTINGS)(given, field);
}

/** The entries in table order, for readers that walk them. */
export const STACK_OPTION_LIST: readonly StackOption<StackOptionKey>[] = Object.values(
  STACK_OPTIONS,
) as StackOption<StackOptionKey>[];

/** Checks each option given, in table order, and gives each its default: the options a builder reads. */
export function checkStackOptionTable(
  options: Record<string, unknown>,
  serve: NormalizedServe,
): StackOptionValues {
  const checked: Partial<Record<StackOptionKey, unknown>> = {};
  const context: StackContext = { serve, checked: checked as Partial<StackOptionValues> };
  for (const option of STACK_OPTION_LIST) {
    const given = options[option.key];
    if (given !== undefined) checked[option.key] = option.check(given, option.key, context);
    else if (option.default.kind === "value") checked[option.key] = option.default.value;
    else if (option.default.kind === "derived") checked[option.key] = option.default.value(context);
  }
  return checked as StackOptionValues;
}
