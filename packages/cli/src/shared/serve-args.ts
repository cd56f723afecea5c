import type { LoraAdapter, ServeOptions } from "@finetune-studio/serve-kit";
import { type CommandArgs, positional } from "./command-args.js";
import { API_KEY_ENV_FLAG, DEFAULT_LISTEN, GPU_FLAGS } from "./common-flags.js";
import { ENGINE_FLAGS, engineValues } from "./engine-flags.js";
import {
  describedAs,
  type Flag,
  type FlagReader,
  flagForField,
  giveOne,
  listFlag,
  parseFlags,
  switchFlag,
  textFlag,
} from "./flags.js";
import { inHelp, UsageError } from "./io.js";
import { numberOrRaw } from "./raw-values.js";
import { quoted } from "./values.js";

// The flags of the serving intent, which `command`, `launch` and `stack` share. Their values go to serve-kit's
// builder raw (a port that is not a number included), so its one-line error names the rule and what was given.

export const HOST_FLAG = textFlag("host", {
  valueName: "H",
  field: "host",
  help: "listen address: by default only this machine; 0.0.0.0 for all",
  shows: DEFAULT_LISTEN.host,
});
export const SERVE_PORT_FLAG = textFlag("port", {
  valueName: "P",
  field: "port",
  help: "listen port",
  shows: DEFAULT_LISTEN.port,
});
export const SERVE_KEY_FLAG = describedAs(
  API_KEY_ENV_FLAG,
  'require the key held in the environment variable NAME (sent to vLLM\nas VLLM_API_KEY; clients send "Authorization: Bearer <key>")',
);
export const SERVED_NAME_FLAG = textFlag("served-model-name", {
  valueName: "N",
  field: "servedModelName",
  help: 'the name clients send in "model" (default: the model path itself); with\nlora, the name of the base model without an adapter',
});
export const ADAPTER_FLAG = listFlag("adapter", {
  valueName: "name=path",
  field: "adapters",
  help: 'an adapter; repeat for several. Clients send the name in "model"',
});
// The fit check before vLLM starts (plan/fit-check.ts): the GPU to plan for (GPU_FLAGS), and refusing
// instead of warning.
export const STRICT_FLAG = switchFlag("strict", "refuse to start when it will not fit, instead of warning");

/** What `command` and `launch` both take. */
export const SERVE_FLAGS: readonly Flag[] = [
  HOST_FLAG,
  SERVE_PORT_FLAG,
  SERVE_KEY_FLAG,
  SERVED_NAME_FLAG,
  ADAPTER_FLAG,
  ...GPU_FLAGS,
  STRICT_FLAG,
  ...ENGINE_FLAGS,
];

/** `<model>` of `full <model>`, and `<base>` of `lora <base>`: what the serve commands act on. */
export const MODEL_ARG = positional("<model>", "a hub repository (owner/name) or a local directory");
export const BASE_ARG = positional("<base>", "the base model the adapters were trained on");
/** What each serve command takes after its options: vLLM's own flags, passed on as they are. */
const VLLM_TAIL = "[-- vllm options]";

/**
 * The two forms of a serve command (`command`, `launch`): `full <model>`, and `lora <base>` with its
 * adapters. parseServeArgs reads them; `--adapter`'s presence is its rule (the message says what to write).
 */
export function serveForms(name: string, flags: readonly Flag[]): readonly CommandArgs[] {
  return [
    { name: `${name} full`, positionals: [MODEL_ARG], flags, trailing: VLLM_TAIL },
    {
      name: `${name} lora`,
      positionals: [BASE_ARG],
      flags,
      requiredFlags: [ADAPTER_FLAG],
      builderChecks: true,
      trailing: VLLM_TAIL,
    },
  ];
}

/** The model a parsed serve names: the full model, or a LoRA serve's base. */
export function servedModelOf(parsed: ParsedServeArgs): string {
  return parsed.options.kind === "full" ? parsed.options.model : parsed.options.baseModel;
}

export interface ParsedServeArgs extends FlagReader {
  kind: "full" | "lora";
  /** The serving intent, without the API key: that comes from the environment. */
  options: ServeOptions;
  /** The name of the environment variable holding the key (--api-key-env). */
  apiKeyEnv: string | undefined;
  /** Whether a flag was given at all, by its declaration (a flag with a default reads as given only when typed). */
  given(flag: Flag): boolean;
  /** The flags the command takes, by which a library's field names are told as flags. */
  flags: readonly Flag[];
}

/**
 * Parses `<full|lora> <model> [flags] [-- vllm args]` by `flags` (the serve flags and the command's own).
 * Values are passed on raw when they are not plain numbers, so the builder's one-line error names the rule
 * and what was given.
 */
export function parseServeArgs(
  subcommand: string,
  args: readonly string[],
  flags: readonly Flag[],
): ParsedServeArgs | "help" {
  const parsed = parseFlags(args, flags);
  const { extraArgs } = parsed;
  const words = parsed.positionals.slice(0, parsed.positionals.length - extraArgs.length);
  if (parsed.help) return "help";
  const [kind, model, ...rest] = words;
  if (kind !== "full" && kind !== "lora") {
    throw new UsageError(
      kind === undefined
        ? "say what to serve: full <model> or lora <base> --adapter name=path"
        : `unknown kind ${quoted(kind)}: use full or lora`,
      subcommand,
    );
  }
  const helpFor = `${subcommand} ${kind}`;
  if (model === undefined) throw new UsageError(`missing ${kind === "full" ? "<model>" : "<base>"}`, helpFor);
  if (rest.length > 0) {
    throw new UsageError(`unexpected argument ${quoted(rest[0])}; put vLLM's own options after --`, helpFor);
  }
  // The serve flags a command takes (`stack` takes no --host): each read through its declaration.
  const declared = <T>(flag: Flag<T>) => (parsed.declares(flag) ? parsed.get(flag) : undefined);
  const apiKeyEnv = inHelp(helpFor, () => declared(API_KEY_ENV_FLAG));
  if (flags.includes(GPU_FLAGS[0] as Flag)) inHelp(helpFor, () => giveOne(parsed, GPU_FLAGS));
  const common = {
    ...defined("host", declared(HOST_FLAG)),
    ...defined("port", numberOrRaw(declared(SERVE_PORT_FLAG))),
    ...defined("servedModelName", declared(SERVED_NAME_FLAG)),
    ...engineValues(parsed, kind, helpFor),
    ...(extraArgs.length > 0 ? { extraArgs } : {}),
  };
  const { get, declares, given } = parsed;
  if (kind === "full") {
    if (parsed.given(ADAPTER_FLAG))
      throw new UsageError("--adapter: is for lora; a full model has no adapters", helpFor);
    const full: ServeOptions = { kind, model, ...common };
    return { kind, options: full, apiKeyEnv, get, declares, given, flags };
  }
  const adapters = parsed.get(ADAPTER_FLAG).map((text, index) => parseAdapter(text, index, helpFor));
  if (adapters.length === 0) {
    throw new UsageError(
      `--adapter: must list at least one adapter: add ${ADAPTER_FLAG.usage} (repeat it for more), or serve full <model>`,
      helpFor,
    );
  }
  const lora: ServeOptions = { kind, baseModel: model, adapters, ...common };
  return { kind, options: lora, apiKeyEnv, get, declares, given, flags };
}

function parseAdapter(text: string, index: number, helpFor: string): LoraAdapter {
  // The name cannot hold "=", so the first "=" ends it; the path may hold more.
  const at = text.indexOf("=");
  if (at <= 0)
    throw new UsageError(`--adapter #${index + 1}: must be name=path (given ${quoted(text)})`, helpFor);
  return { name: text.slice(0, at), path: text.slice(at + 1) };
}

/** Where the server's key comes from: `--api-key-env NAME`, or a `VLLM_API_KEY` already in the environment. */
export interface KeySource {
  /** The environment variable that holds the key. */
  name: string;
  /** True when it is an inherited VLLM_API_KEY rather than --api-key-env: vLLM would read it anyway. */
  inherited: boolean;
}

/**
 * The one rule `command` and `launch` share: without --api-key-env, a VLLM_API_KEY already set would reach
 * vLLM (it reads the variable itself), so it is the key the server will demand and clients must send.
 */
export function keySource(parsed: ParsedServeArgs, env: NodeJS.ProcessEnv): KeySource | undefined {
  if (parsed.apiKeyEnv !== undefined) return { name: parsed.apiKeyEnv, inherited: false };
  return env.VLLM_API_KEY ? { name: "VLLM_API_KEY", inherited: true } : undefined;
}

/** The line that says an inherited key is used, without printing it. */
export const INHERITED_KEY_NOTE =
  "studio-serve: using the API key in VLLM_API_KEY (set in this environment; vLLM would read it anyway)\n";

/**
 * `{ [key]: value }` when the value was given. Typed `never` so a raw string (say `--port abc`) can go where
 * the builder expects a number: the builder checks every value at run time and names the rule it broke.
 */
function defined<K extends string>(key: K, value: unknown): Partial<Record<K, never>> {
  return (value === undefined ? {} : { [key]: value }) as Partial<Record<K, never>>;
}

/** The builder's fields no flag sets, as the user knows them. */
const OTHER_FIELDS: Readonly<Record<string, string>> = {
  model: "<model>",
  baseModel: "<base>",
  apiKey: "the key in --api-key-env",
};

/**
 * A library's field name as the user knows it: the flag that set it, by the command's declarations
 * (`maxModelLen` is `--max-model-len`, `servers[1]` the second `--upstream`), else the argument it came from.
 */
export function cliField(field: string, flags: readonly Flag[]): string {
  const flag = flagForField(flags, field);
  if (flag !== undefined) return flag;
  const extra = /^extraArgs\[(\d+)\]$/.exec(field);
  if (extra) return `argument ${Number(extra[1]) + 1} after --`;
  return OTHER_FIELDS[field] ?? field;
}

/** A builder's rule as the user reads it: "use the maxModelLen option" names the flag, --max-model-len. */
export function cliRule(rule: string, flags: readonly Flag[]): string {
  const named = rule.replace(/\bthe (\w+) option\b/g, (whole, key: string) => {
    const flag = cliField(key, flags);
    return flag === key ? whole : flag;
  });
  // A library field named bare in a rule (`must be at least maxLoras (4)`): the flag a user types for it.
  return named.replace(
    /(?<![\w.'"-])[a-z]+(?:[A-Z][a-z]*)+\b(?![.'"])/g,
    (key) => flagForField(flags, key) ?? key,
  );
}
