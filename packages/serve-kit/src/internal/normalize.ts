import { describeValue } from "@finetune-studio/internal";
import { ServeConfigError } from "../errors.js";
import { DEFAULT_HOST, DEFAULT_PORT } from "../listen-address.js";
import {
  ENGINE_OPTION_LIST,
  engineOptionsFor,
  type LoraEngineOptions,
  normalizeEngineOptions,
} from "../options/engine-options.js";
import type { LoraAdapter } from "../serve-options.js";
import {
  CONFIG_FLAG,
  looksLikeOption,
  ownedFlagSetBy,
  ownedFlags,
  readOptionWord,
  resolvesTo,
  type VllmOptionWord,
} from "./owned-flags.js";
import { hasControlCharacter } from "./text.js";
import {
  checkAdapterName,
  checkApiKey,
  checkHost,
  checkKnownKeys,
  checkObject,
  checkPort,
  checkReference,
  checkServedName,
  optional,
} from "./validate.js";

interface NormalizedCommon {
  host: string;
  port: number;
  apiKey: string | undefined;
  servedModelName: string | undefined;
  /** The engine options given, checked (a full serve never holds the LoRA-only ones). */
  engine: LoraEngineOptions;
  extraArgs: string[];
}

export interface NormalizedFull extends NormalizedCommon {
  kind: "full";
  model: string;
}

export interface NormalizedLora extends NormalizedCommon {
  kind: "lora";
  baseModel: string;
  adapters: LoraAdapter[];
}

/** Serve options after every rule has been checked and defaults applied. */
export type NormalizedServe = NormalizedFull | NormalizedLora;

const COMMON_KEYS = ["kind", "host", "port", "apiKey", "servedModelName", "extraArgs"] as const;
const FULL_KEYS = [...COMMON_KEYS, "model", ...engineOptionsFor("full").map((option) => option.key)];
const LORA_KEYS = [
  ...COMMON_KEYS,
  "baseModel",
  "adapters",
  ...ENGINE_OPTION_LIST.map((option) => option.key),
];

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
  const engine = normalizeEngineOptions(options, kind);
  const common: NormalizedCommon = {
    host: optional(options.host, checkHost, "host") ?? DEFAULT_HOST,
    port: optional(options.port, checkPort, "port") ?? DEFAULT_PORT,
    apiKey: optional(options.apiKey, checkApiKey, "apiKey"),
    servedModelName: optional(options.servedModelName, checkServedName, "servedModelName"),
    engine,
    extraArgs: checkExtraArgs(options.extraArgs, kind, engine),
  };
  if (kind === "full") return { kind, model: checkReference(options.model, "model"), ...common };
  const adapters = checkAdapters(options.adapters);
  const baseModel = checkReference(options.baseModel, "baseModel");
  checkBaseNameFree(adapters, common.servedModelName, baseModel);
  return { kind, baseModel, adapters, ...common };
}

/**
 * vLLM serves the base model under its served name, by default the model argument as given, and answers a
 * request's `model` with one model only (its OpenAI server's `_maybe_get_adapters`: older releases look the
 * base up first, newer ones the adapters), so an adapter under that name leaves one of the two unreachable.
 * The field refused is the name the user chose: the served name when set, else the adapter's.
 */
function checkBaseNameFree(adapters: LoraAdapter[], servedModelName: string | undefined, baseModel: string) {
  const baseName = servedModelName ?? baseModel;
  const index = adapters.findIndex((adapter) => adapter.name === baseName);
  if (index === -1) return;
  const unreachable = "since vLLM answers a name with one model only";
  if (servedModelName !== undefined) {
    throw new ServeConfigError(
      "servedModelName",
      `must differ from every adapter's name, ${unreachable}: the adapter named ${describeValue(baseName)} could not be reached`,
      describeValue(servedModelName),
    );
  }
  throw new ServeConfigError(
    `adapters[${index}].name`,
    `must differ from the base model's served name ${describeValue(baseName)} (the base model as given, with no served name set), ${unreachable}: the adapter could not be reached`,
    describeValue(baseName),
  );
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

function checkExtraArgs(value: unknown, kind: "full" | "lora", engine: LoraEngineOptions): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value))
    throw new ServeConfigError("extraArgs", "must be an array of strings", describeValue(value));
  const args = value.map((argument: unknown, index) => {
    if (typeof argument !== "string")
      throw new ServeConfigError(`extraArgs[${index}]`, "must be a string", describeValue(argument));
    return argument;
  });
  const owned = ownedFlags(kind, engine);
  args.forEach((argument, index) => {
    checkExtraArg(argument, index, args, owned);
  });
  checkFirstKeptWord(args);
  return args;
}

/**
 * vLLM moves dotted arguments (and the value after each) to the end, so the first word it leaves in place
 * follows the builder's last option. It must be an option: a value there would join that option
 * (another served name, another adapter) or become another model.
 */
function checkFirstKeptWord(args: readonly string[]): void {
  let index = 0;
  while (index < args.length) {
    const word = readOptionWord(args[index] ?? "");
    if (word?.dotted !== true) break;
    index += word.inlineValue ? 1 : 2;
  }
  const first = args[index];
  if (first === undefined || looksLikeOption(first)) return;
  const moved = index === 0 ? "" : " (vLLM moves the dotted arguments before it to the end)";
  throw new ServeConfigError(
    `extraArgs[${index}]`,
    first.startsWith("-")
      ? `must be an option (--name)${moved}: vLLM reads a word like -1 or -.5 as a value of the option before it, which the builder wrote`
      : `must be an option (--name)${moved}: a bare value would be read as another model or as a value of the option before it`,
    describeValue(first),
  );
}

// The rules below follow vLLM's parser; owned-flags.ts says which version and how it reads arguments.
function checkExtraArg(
  argument: string,
  index: number,
  args: readonly string[],
  owned: Record<string, string>,
): void {
  const field = `extraArgs[${index}]`;
  const refuse = (rule: string, given = describeValue(argument)): never => {
    throw new ServeConfigError(field, rule, given);
  };
  if (hasControlCharacter(argument)) refuse("must not hold NUL, newlines or other control characters");
  if (argument === "--") refuse("must not end vLLM's options with '--'");
  const word = readOptionWord(argument);
  if (word === undefined) return;
  const flag = ownedFlagSetBy(argument, owned);
  if (flag !== undefined) {
    const rule = `must not set ${flag}, which the builder writes (vLLM reads ${describeSpelling(word)} as ${flag}); use ${owned[flag]}`;
    // A key may follow --api-key in any spelling: never echo the argument.
    refuse(rule, flag === "--api-key" ? "an --api-key argument" : describeValue(argument));
  }
  if (word.name === CONFIG_FLAG || resolvesTo(word.name, CONFIG_FLAG)) {
    refuse(
      "must not use --config: vLLM would read options from the file (a key, other adapters, another port) that the builder cannot check; pass them as extraArgs",
    );
  }
  if (word.dotted) {
    if (!looksLikeOption(word.name)) {
      refuse(
        "must not start with '-' and hold '.' unless it is a dotted option (--name.key value): vLLM reads it as one and takes the next argument as its value; write a negative number as the value of --name=-0.5",
      );
    }
    if (!word.inlineValue && index === args.length - 1) {
      refuse(
        "needs a value after it: vLLM takes the next argument as a dotted option's value, and fails without one",
      );
    }
  }
}

function describeSpelling(word: VllmOptionWord): string {
  if (word.dotted) return "a dotted argument";
  return "this spelling";
}
