import { DEFAULT_VLLM_IMAGE } from "../docker-command.js";
import { type NormalizedServe, normalizeServeOptions } from "../internal/normalize.js";
import { ownedFlagSetBy } from "../internal/owned-flags.js";
import { hasControlCharacter, hasWhitespace } from "../internal/text.js";
import {
  checkKnownKeys,
  checkObject,
  checkPositiveInteger,
  checkString,
  oneOf,
  optional,
  refuse,
} from "../internal/validate.js";
import {
  ENGINE_OPTION_LIST,
  ENGINE_OPTIONS,
  type EngineOptionKey,
  type LoraEngineOptions,
} from "../options/engine-options.js";
import {
  checkRoutingPolicy,
  checkSessionHeader,
  DEFAULT_SESSION_HEADER,
  type RoutingPolicy,
} from "../routing.js";
import { CHART_LONGEST_SUFFIX, CHART_PVC_MOUNT_PATH } from "./chart.js";
import {
  checkDnsLabel,
  checkDnsSubdomain,
  checkQuantity,
  checkSecretKey,
  dnsLabelFrom,
} from "./kubernetes-names.js";
import type {
  SecretKeyReference,
  StackAdapterLoading,
  StackRoutingLogic,
  StackStorage,
} from "./stack-options.js";

export const DEFAULT_RELEASE = "vllm";
export const DEFAULT_CPU = 8;
export const DEFAULT_MEMORY = "32Gi";
export const DEFAULT_STARTUP_TIMEOUT_SECONDS = 1800;
/** How often Kubernetes asks `/health` while an engine starts; the timeout becomes a number of these. */
export const STARTUP_PROBE_PERIOD_SECONDS = 10;

/** Each routing policy as production-stack's router spells the nearest logic it has. */
const ROUTING_LOGIC: Record<RoutingPolicy, StackRoutingLogic> = {
  "least-busy": "roundrobin",
  session: "session",
  prefix: "prefixaware",
};
const LOADING: readonly StackAdapterLoading[] = ["static", "runtime"];
const OPTION_KEYS = [
  "name",
  "release",
  "namespace",
  "image",
  "replicas",
  "gpusPerReplica",
  "cpu",
  "memory",
  "maxModelLen",
  "dtype",
  "prefixCaching",
  "apiKeySecret",
  "hfTokenSecret",
  "storage",
  "adapterLoading",
  "routing",
  "sessionHeader",
  "runtimeClassName",
  "startupTimeoutSeconds",
];

/** Stack options after every rule has been checked and defaults applied, with the serve configuration. */
export interface NormalizedStack {
  serve: NormalizedServe;
  name: string;
  release: string;
  namespace: string | undefined;
  repository: string;
  tag: string;
  replicas: number;
  gpusPerReplica: number;
  cpu: number;
  memory: string;
  /**
   * The engine options the engines run with: the serve configuration's, with the stack's own aliases
   * (`maxModelLen`, `dtype`, `prefixCaching`) and `gpusPerReplica` as tensor parallelism folded in.
   */
  engine: LoraEngineOptions;
  apiKeySecret: SecretKeyReference | undefined;
  hfTokenSecret: SecretKeyReference | undefined;
  storage: StackStorage | undefined;
  /** The directory local paths must sit under, when there is storage. */
  mountPath: string | undefined;
  adapterLoading: StackAdapterLoading;
  routingLogic: StackRoutingLogic;
  sessionKey: string | undefined;
  runtimeClassName: string | undefined;
  startupTimeoutSeconds: number;
}

/** Checks the serve configuration and the stack options together (the input may come from plain JavaScript). */
export function normalizeStackOptions(config: unknown, input: unknown = {}): NormalizedStack {
  const serve = normalizeServeOptions(config);
  const options = checkObject(input, "stack options");
  checkKnownKeys(options, OPTION_KEYS, "the stack options");

  // The engine Service is `<release>-<name>-engine-service`, a DNS label: the name gets what the release leaves.
  const release = optional(options.release, checkReleaseName, "release") ?? DEFAULT_RELEASE;
  const nameBudget = 63 - release.length - 1 - CHART_LONGEST_SUFFIX.length;
  const name =
    options.name === undefined
      ? dnsLabelFrom(defaultNameSource(serve), nameBudget)
      : checkModelName(options.name, nameBudget, release);

  const { repository, tag } = splitImage(options.image ?? DEFAULT_VLLM_IMAGE);
  // A replica's GPUs only help when the model is sharded across them: tensor parallelism requests as many.
  const gpusPerReplica =
    optional(options.gpusPerReplica, checkPositiveInteger, "gpusPerReplica") ??
    serve.engine.tensorParallelSize ??
    1;
  const replicas = optional(options.replicas, checkPositiveInteger, "replicas") ?? 1;
  const storage = optional(options.storage, (v) => checkStorage(v, replicas), "storage");
  const mountPath = storage === undefined ? undefined : storageMountPath(storage);
  const apiKeySecret = optional(options.apiKeySecret, checkSecretReference, "apiKeySecret");
  if (serve.apiKey !== undefined && apiKeySecret === undefined) {
    refuse(
      "apiKeySecret",
      "must name the Secret { name, key } holding the key when the configuration has an apiKey: the key itself never goes into Helm values",
      undefined,
    );
  }
  const adapterLoading = optional(options.adapterLoading, oneOf(LOADING), "adapterLoading") ?? "static";
  if (options.adapterLoading !== undefined && serve.kind !== "lora") {
    refuse("adapterLoading", "applies to a LoRA serve only", options.adapterLoading);
  }
  const routing = optional(options.routing, checkRoutingPolicy, "routing") ?? "least-busy";
  const sessionHeader = optional(options.sessionHeader, checkSessionHeader, "sessionHeader");
  if (routing !== "session" && sessionHeader !== undefined) {
    refuse(
      "sessionHeader",
      "applies to routing 'session' only (production-stack's router reads no header otherwise)",
      sessionHeader,
    );
  }
  const routingLogic = ROUTING_LOGIC[routing];
  const sessionKey = routing === "session" ? (sessionHeader ?? DEFAULT_SESSION_HEADER) : undefined;

  const normalized: NormalizedStack = {
    serve,
    name,
    release,
    namespace: optional(options.namespace, checkDnsLabel, "namespace"),
    repository,
    tag,
    replicas,
    gpusPerReplica,
    cpu: optional(options.cpu, checkPositiveInteger, "cpu") ?? DEFAULT_CPU,
    memory: optional(options.memory, checkQuantity, "memory") ?? DEFAULT_MEMORY,
    engine: stackEngine(serve, options, gpusPerReplica),
    apiKeySecret,
    hfTokenSecret: optional(options.hfTokenSecret, checkSecretReference, "hfTokenSecret"),
    storage,
    mountPath,
    adapterLoading,
    routingLogic,
    sessionKey,
    runtimeClassName: optional(options.runtimeClassName, checkRuntimeClassName, "runtimeClassName"),
    startupTimeoutSeconds:
      optional(options.startupTimeoutSeconds, checkPositiveInteger, "startupTimeoutSeconds") ??
      DEFAULT_STARTUP_TIMEOUT_SECONDS,
  };
  checkExtraArgsAgainstChart(normalized);
  checkLocalPaths(normalized);
  checkRuntimeLoading(normalized);
  return normalized;
}

function defaultNameSource(serve: NormalizedServe): string {
  return serve.kind === "full" ? (serve.servedModelName ?? serve.model) : serve.baseModel;
}

function checkModelName(value: unknown, budget: number, release: string): string {
  const name = checkDnsLabel(value, "name");
  if (name.length > budget) {
    refuse(
      "name",
      `must be at most ${budget} characters with release "${release}": the chart names the engine's Service <release>-<name>${CHART_LONGEST_SUFFIX}, at most 63`,
      value,
    );
  }
  return name;
}

/** The chart's Service names start with the release: Kubernetes wants them to start with a letter. */
function checkReleaseName(value: unknown, field: string): string {
  const release = checkDnsLabel(value, field, 46);
  if (!/^[a-z]/.test(release)) {
    refuse(
      field,
      "must start with a letter: the chart's Service names begin with the release, and Kubernetes refuses a Service name that starts with a digit",
      value,
    );
  }
  return release;
}

/** `repository:tag`, as the chart joins them. A digest cannot be expressed that way. */
function splitImage(value: unknown): { repository: string; tag: string } {
  const image = checkString(value, "image");
  if (image === "" || image.startsWith("-") || hasWhitespace(image) || image.includes("@")) {
    refuse(
      "image",
      "must be an image reference repository:tag such as vllm/vllm-openai:v0.11.0 (no digest: the chart joins repository and tag)",
      value,
    );
  }
  const colon = image.lastIndexOf(":");
  if (colon > image.lastIndexOf("/") && colon !== -1) {
    const tag = image.slice(colon + 1);
    if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/.test(tag)) refuse("image", "must end in a valid tag", value);
    return { repository: image.slice(0, colon), tag };
  }
  return { repository: image, tag: "latest" };
}

function checkSecretReference(value: unknown, field: string): SecretKeyReference {
  const reference = checkObject(value, field);
  checkKnownKeys(reference, ["name", "key"], `a Secret reference (${field})`);
  return {
    name: checkDnsSubdomain(reference.name, `${field}.name`),
    key: checkSecretKey(reference.key, `${field}.key`),
  };
}

function checkRuntimeClassName(value: unknown, field: string): string {
  const name = checkString(value, field);
  return name === "" ? name : checkDnsSubdomain(name, field);
}

function checkAbsoluteDirectory(value: unknown, field: string): string {
  const path = checkString(value, field);
  if (!path.startsWith("/") || path.split("/").some((part) => part === "." || part === "..")) {
    refuse(field, "must be an absolute path without '.' or '..' segments", value);
  }
  if (/^\/+$/.test(path))
    refuse(field, "must be a directory below /: a volume cannot be mounted over the container's root", value);
  if (path.includes(":") || hasControlCharacter(path))
    refuse(field, "must not hold ':' or control characters", value);
  return path.length > 1 ? path.replace(/\/+$/, "") : path;
}

function checkStorage(value: unknown, replicas: number): StackStorage {
  const storage = checkObject(value, "storage");
  switch (storage.kind) {
    case "pvc": {
      checkKnownKeys(storage, ["kind", "size", "storageClass", "accessMode"], "storage of kind 'pvc'");
      const accessMode =
        optional(
          storage.accessMode,
          oneOf(["ReadWriteOnce", "ReadWriteMany"] as const),
          "storage.accessMode",
        ) ?? (replicas > 1 ? "ReadWriteMany" : "ReadWriteOnce");
      const storageClass = optional(storage.storageClass, checkDnsSubdomain, "storage.storageClass");
      return {
        kind: "pvc",
        size: checkQuantity(storage.size, "storage.size"),
        accessMode,
        ...(storageClass === undefined ? {} : { storageClass }),
      };
    }
    case "claim":
      checkKnownKeys(storage, ["kind", "claimName", "mountPath"], "storage of kind 'claim'");
      return {
        kind: "claim",
        claimName: checkDnsSubdomain(storage.claimName, "storage.claimName"),
        mountPath: checkAbsoluteDirectory(storage.mountPath, "storage.mountPath"),
      };
    case "hostPath":
      checkKnownKeys(storage, ["kind", "path"], "storage of kind 'hostPath'");
      return { kind: "hostPath", path: checkAbsoluteDirectory(storage.path, "storage.path") };
    default:
      return refuse("storage.kind", "must be 'pvc', 'claim' or 'hostPath'", storage.kind);
  }
}

function storageMountPath(storage: StackStorage): string {
  if (storage.kind === "pvc") return CHART_PVC_MOUNT_PATH;
  return storage.kind === "claim" ? storage.mountPath : storage.path;
}

/** The configuration's weights, each with the field that named it. */
export function weightReferences(serve: NormalizedServe): [field: string, reference: string][] {
  if (serve.kind === "full") return [["model", serve.model]];
  return [
    ["baseModel", serve.baseModel],
    ...serve.adapters.map((adapter, i): [string, string] => [`adapters[${i}].path`, adapter.path]),
  ];
}

/** True for a path on disk; anything else is taken for a hub repository, as vLLM does. */
export function isLocalPath(reference: string): boolean {
  return /^(\/|~|\.\.?(\/|$))/.test(reference);
}

/** A local path must be absolute and sit under the mounted directory, or the pods would not find it. */
function checkLocalPaths(stack: NormalizedStack): void {
  for (const [field, reference] of weightReferences(stack.serve)) {
    if (!isLocalPath(reference)) continue;
    if (!reference.startsWith("/") || reference.split("/").some((part) => part === "." || part === "..")) {
      refuse(
        field,
        "must be an absolute path or a hub repository on Kubernetes: a relative path means nothing in a pod",
        reference,
      );
    }
    const { mountPath } = stack;
    if (mountPath === undefined) {
      refuse(
        field,
        "is a local path: give storage (pvc, claim or hostPath) so the pods can see it, or use a hub repository",
        reference,
      );
    }
    if (reference !== mountPath && !reference.startsWith(`${mountPath}/`)) {
      refuse(field, `must sit under ${mountPath}, the directory storage mounts in the pods`, reference);
    }
  }
}

/**
 * Runtime loading opens vLLM's endpoints that load any path on the pod, so it needs a key; and the LoRA
 * controller downloads a hub adapter through the chart's sidecar, which only runs beside a chart-made claim.
 */
function checkRuntimeLoading(stack: NormalizedStack): void {
  if (stack.serve.kind !== "lora" || stack.adapterLoading !== "runtime") return;
  if (stack.apiKeySecret === undefined) {
    refuse(
      "apiKeySecret",
      "is required with adapterLoading 'runtime': vLLM's runtime LoRA endpoints load any path and are meant for trusted callers",
      undefined,
    );
  }
  stack.serve.adapters.forEach((adapter, i) => {
    if (!isLocalPath(adapter.path) && stack.storage?.kind !== "pvc") {
      refuse(
        `adapters[${i}].path`,
        "is a hub repository: with adapterLoading 'runtime' the LoRA controller downloads it into storage of kind 'pvc', so give one",
        adapter.path,
      );
    }
  });
}

/**
 * The stack options that say what an engine option says: `maxModelLen`, `dtype` and `prefixCaching` (kept
 * for callers of the stack builders before the serve configuration took them).
 */
const STACK_ALIASES = {
  maxModelLen: "maxModelLen",
  dtype: "dtype",
  prefixCaching: "enablePrefixCaching",
} as const satisfies Record<string, EngineOptionKey>;

/** The engine options of the serve configuration, with the stack's aliases and its GPUs folded in. */
function stackEngine(
  serve: NormalizedServe,
  options: Record<string, unknown>,
  gpusPerReplica: number,
): LoraEngineOptions {
  const engine: Record<string, unknown> = { ...serve.engine };
  for (const [alias, key] of Object.entries(STACK_ALIASES)) {
    if (options[alias] === undefined) continue;
    const value = ENGINE_OPTIONS[key].check(options[alias], alias);
    if (engine[key] !== undefined && engine[key] !== value) {
      refuse(
        alias,
        `must agree with the serve configuration's ${key} (${String(engine[key])}), or be left out`,
        value,
      );
    }
    engine[key] = value;
  }
  const parallel = serve.engine.tensorParallelSize;
  if (parallel !== undefined && parallel !== gpusPerReplica) {
    refuse(
      "gpusPerReplica",
      `must equal the serve configuration's tensorParallelSize (${parallel}): each replica shards the model across its GPUs`,
      gpusPerReplica,
    );
  }
  if (gpusPerReplica > 1) engine.tensorParallelSize = gpusPerReplica;
  return engine as LoraEngineOptions;
}

/** Flags the chart writes from these values; an extra argument setting one would contradict the values. */
function chartOwnedFlags(stack: NormalizedStack): Record<string, string> {
  const owned: Record<string, string> = {
    "--enable-prefix-caching": "the enablePrefixCaching option (or the prefixCaching stack option)",
    "--no-enable-prefix-caching": "the enablePrefixCaching option (or the prefixCaching stack option)",
    "--tensor-parallel-size": "the gpusPerReplica stack option, which also requests the GPUs",
  };
  for (const option of ENGINE_OPTION_LIST) {
    if (option.stackKey !== null && stack.engine[option.key] !== undefined) {
      owned[option.flag] ??= `the ${option.key} option alone`;
    }
  }
  return owned;
}

function checkExtraArgsAgainstChart(stack: NormalizedStack): void {
  const owned = chartOwnedFlags(stack);
  stack.serve.extraArgs.forEach((argument, index) => {
    const flag = /^-tp(=|$)/.test(argument) ? "--tensor-parallel-size" : ownedFlagSetBy(argument, owned);
    if (flag !== undefined) {
      refuse(
        `extraArgs[${index}]`,
        `must not set ${flag} on Kubernetes, which the chart writes; use ${owned[flag]}`,
        argument,
      );
    }
  });
}
