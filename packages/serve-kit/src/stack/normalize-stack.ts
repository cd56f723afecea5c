import { type NormalizedServe, normalizeServeOptions } from "../internal/normalize.js";
import { ownedFlagSetBy } from "../internal/owned-flags.js";
import { checkKnownKeys, checkObject, refuse } from "../internal/validate.js";
import {
  ENGINE_OPTION_LIST,
  type EngineOptionKey,
  type LoraEngineOptions,
} from "../options/engine-options.js";
import { CHART_PVC_MOUNT_PATH } from "./chart.js";
import { checkStackOptionTable, ROUTING_LOGIC, STACK_OPTION_LIST } from "./stack-option-table.js";
import type { StackOptionValues } from "./stack-option-types.js";
import type { StackRoutingLogic, StackStorage } from "./stack-options.js";

/** How often Kubernetes asks `/health` while an engine starts; the timeout becomes a number of these. */
export const STARTUP_PROBE_PERIOD_SECONDS = 10;

/** Stack options after every rule has been checked and defaults applied (the table's), with the serve configuration. */
export interface NormalizedStack extends StackOptionValues {
  serve: NormalizedServe;
  /**
   * The engine options the engines run with: the serve configuration's, with the stack's own aliases
   * (`maxModelLen`, `dtype`, `prefixCaching`) and `gpusPerReplica` as tensor parallelism folded in.
   */
  engine: LoraEngineOptions;
  /** The directory local paths must sit under, when there is storage. */
  mountPath: string | undefined;
  routingLogic: StackRoutingLogic;
}

/** Checks the serve configuration and the stack options together (the input may come from plain JavaScript). */
export function normalizeStackOptions(config: unknown, input: unknown = {}): NormalizedStack {
  const serve = normalizeServeOptions(config);
  const options = checkObject(input, "stack options");
  checkKnownKeys(
    options,
    STACK_OPTION_LIST.map((option) => option.key),
    "the stack options",
  );
  const checked = checkStackOptionTable(options, serve);
  if (serve.apiKey !== undefined && checked.apiKeySecret === undefined) {
    refuse(
      "apiKeySecret",
      "must name the Secret { name, key } holding the key when the configuration has an apiKey: the key itself never goes into Helm values",
      undefined,
    );
  }
  const normalized: NormalizedStack = {
    ...checked,
    serve,
    engine: stackEngine(serve, checked),
    mountPath: checked.storage === undefined ? undefined : storageMountPath(checked.storage),
    routingLogic: ROUTING_LOGIC[checked.routing],
  };
  checkExtraArgsAgainstChart(normalized);
  checkLocalPaths(normalized);
  checkRuntimeLoading(normalized);
  return normalized;
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
} as const satisfies Partial<Record<keyof StackOptionValues, EngineOptionKey>>;

/** The engine options of the serve configuration, with the stack's aliases and its GPUs folded in. */
function stackEngine(serve: NormalizedServe, checked: StackOptionValues): LoraEngineOptions {
  const engine: Record<string, unknown> = { ...serve.engine };
  for (const [alias, key] of Object.entries(STACK_ALIASES)) {
    const value = checked[alias as keyof typeof STACK_ALIASES];
    if (value === undefined) continue;
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
  const { gpusPerReplica } = checked;
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
