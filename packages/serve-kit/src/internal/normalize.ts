import { ServeConfigError } from "../errors.js";
import type { LoraAdapter } from "../serve-options.js";
import { describeValue } from "./describe.js";
import { OWNED_FLAGS, ownedFlagSetBy } from "./owned-flags.js";
import { hasControlCharacter } from "./text.js";
import {
  checkAdapterName,
  checkApiKey,
  checkHost,
  checkKnownKeys,
  checkMaxLoraRank,
  checkObject,
  checkPort,
  checkPositiveInteger,
  checkReference,
  checkServedName,
} from "./validate.js";

export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_PORT = 8000;

interface NormalizedCommon {
  host: string;
  port: number;
  apiKey: string | undefined;
  extraArgs: string[];
}

export interface NormalizedFull extends NormalizedCommon {
  kind: "full";
  model: string;
  servedModelName: string | undefined;
}

export interface NormalizedLora extends NormalizedCommon {
  kind: "lora";
  baseModel: string;
  adapters: LoraAdapter[];
  maxLoraRank: number | undefined;
  maxLoras: number | undefined;
}

/** Serve options after every rule has been checked and defaults applied. */
export type NormalizedServe = NormalizedFull | NormalizedLora;

const COMMON_KEYS = ["kind", "host", "port", "apiKey", "extraArgs"] as const;
const FULL_KEYS = [...COMMON_KEYS, "model", "servedModelName"];
const LORA_KEYS = [...COMMON_KEYS, "baseModel", "adapters", "maxLoraRank", "maxLoras"];

function optional<T>(
  value: unknown,
  check: (value: unknown, field: string) => T,
  field: string,
): T | undefined {
  return value === undefined ? undefined : check(value, field);
}

/** Checks every rule of the serve options (the input may come from plain JavaScript) and fills in defaults. */
export function normalizeServeOptions(input: unknown): NormalizedServe {
  const options = checkObject(input, "options");
  const kind = options.kind;
  if (kind !== "full" && kind !== "lora") {
    throw new ServeConfigError("kind", 'must be "full" or "lora"', describeValue(kind));
  }
  checkKnownKeys(
    options,
    kind === "full" ? FULL_KEYS : LORA_KEYS,
    kind === "full" ? "a full serve" : "a LoRA serve",
  );
  const common: NormalizedCommon = {
    host: optional(options.host, checkHost, "host") ?? DEFAULT_HOST,
    port: optional(options.port, checkPort, "port") ?? DEFAULT_PORT,
    apiKey: optional(options.apiKey, checkApiKey, "apiKey"),
    extraArgs: checkExtraArgs(options.extraArgs, kind),
  };
  if (kind === "full") {
    return {
      kind,
      model: checkReference(options.model, "model"),
      servedModelName: optional(options.servedModelName, checkServedName, "servedModelName"),
      ...common,
    };
  }
  return {
    kind,
    baseModel: checkReference(options.baseModel, "baseModel"),
    adapters: checkAdapters(options.adapters),
    maxLoraRank: optional(options.maxLoraRank, checkMaxLoraRank, "maxLoraRank"),
    maxLoras: optional(options.maxLoras, checkPositiveInteger, "maxLoras"),
    ...common,
  };
}

function checkAdapters(value: unknown): LoraAdapter[] {
  if (!Array.isArray(value)) throw new ServeConfigError("adapters", "must be an array", describeValue(value));
  if (value.length === 0) {
    throw new ServeConfigError("adapters", "must list at least one adapter { name, path }", "an empty array");
  }
  const seen = new Set<string>();
  return value.map((item: unknown, index) => {
    const field = `adapters[${index}]`;
    const adapter = checkObject(item, field);
    checkKnownKeys(adapter, ["name", "path"], "an adapter");
    const name = checkAdapterName(adapter.name, `${field}.name`);
    if (seen.has(name)) {
      throw new ServeConfigError(
        `${field}.name`,
        "must be unique: clients pick an adapter by name",
        describeValue(name),
      );
    }
    seen.add(name);
    return { name, path: checkReference(adapter.path, `${field}.path`) };
  });
}

function checkExtraArgs(value: unknown, kind: "full" | "lora"): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value))
    throw new ServeConfigError("extraArgs", "must be an array of strings", describeValue(value));
  return value.map((argument: unknown, index) => {
    const field = `extraArgs[${index}]`;
    if (typeof argument !== "string")
      throw new ServeConfigError(field, "must be a string", describeValue(argument));
    if (hasControlCharacter(argument)) {
      throw new ServeConfigError(
        field,
        "must not hold NUL, newlines or other control characters",
        describeValue(argument),
      );
    }
    if (index === 0 && !argument.startsWith("-")) {
      throw new ServeConfigError(
        field,
        "must start with an option (--name); a bare value would be read as another model or as a value of the option before it",
        describeValue(argument),
      );
    }
    if (argument === "--") {
      throw new ServeConfigError(field, "must not end vLLM's options with '--'", describeValue(argument));
    }
    const owned = ownedFlagSetBy(argument, OWNED_FLAGS[kind]);
    if (owned !== undefined) {
      throw new ServeConfigError(
        field,
        `must not set ${owned}, which the builder writes; use ${OWNED_FLAGS[kind][owned]}`,
        owned === "--api-key" ? "an --api-key argument" : describeValue(argument),
      );
    }
    return argument;
  });
}
