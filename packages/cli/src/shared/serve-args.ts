import { type ParseArgsConfig, parseArgs } from "node:util";
import { ENGINE_OPTION_LIST, type LoraAdapter, type ServeOptions } from "@finetune-studio/serve-kit";
import { UsageError } from "./io.js";

/** The flags of vLLM's engine options, from serve-kit's table: a switch also has its `--no-` form. */
export const ENGINE_FLAGS: Record<string, { type: "string" | "boolean" }> = Object.fromEntries(
  ENGINE_OPTION_LIST.flatMap((option): [string, { type: "string" | "boolean" }][] => {
    const name = option.flag.slice(2);
    if (option.cli.valueName !== null) return [[name, { type: "string" }]];
    return [
      [name, { type: "boolean" }],
      [`no-${name}`, { type: "boolean" }],
    ];
  }),
);

// The options `command` and `launch` share: the serving intent, as flags.
const SERVE_OPTIONS = {
  host: { type: "string" },
  port: { type: "string" },
  "served-model-name": { type: "string" },
  adapter: { type: "string", multiple: true },
  "api-key-env": { type: "string" },
  help: { type: "boolean", short: "h" },
  // The fit check before vLLM starts (plan/fit-check.ts): the GPU to plan for, and refusing instead of warning.
  gpu: { type: "string" },
  strict: { type: "boolean" },
  ...ENGINE_FLAGS,
} as const satisfies ParseArgsConfig["options"];

/** The model a parsed serve names: the full model, or a LoRA serve's base. */
export function servedModelOf(parsed: ParsedServeArgs): string {
  return parsed.options.kind === "full" ? parsed.options.model : parsed.options.baseModel;
}

export const COMMAND_OPTIONS = {
  ...SERVE_OPTIONS,
  json: { type: "boolean" },
  docker: { type: "boolean" },
  image: { type: "string" },
  "hf-cache": { type: "string" },
} as const satisfies ParseArgsConfig["options"];

export const LAUNCH_OPTIONS = {
  ...SERVE_OPTIONS,
  timeout: { type: "string" },
  "stop-timeout": { type: "string" },
  "log-dir": { type: "string" },
  instances: { type: "string" },
  gpus: { type: "string" },
  "max-connections": { type: "string" },
  "runtime-lora": { type: "boolean" },
} as const satisfies ParseArgsConfig["options"];

type Values = Record<string, string | boolean | string[] | undefined>;

export interface ParsedServeArgs {
  kind: "full" | "lora";
  /** The serving intent, without the API key: that comes from the environment. */
  options: ServeOptions;
  /** The name of the environment variable holding the key (--api-key-env). */
  apiKeyEnv: string | undefined;
  values: Values;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Parses `<full|lora> <model> [flags] [-- vllm args]`. Values are passed on raw when they are not plain
 * numbers, so the builder's one-line error names the rule and what was given.
 */
export function parseServeArgs(
  subcommand: string,
  args: readonly string[],
  options: ParseArgsConfig["options"],
): ParsedServeArgs | "help" {
  const { values, positionals, tokens } = parseCommandLine(subcommand, args, options);
  const terminator = tokens.find((token) => token.kind === "option-terminator");
  const extraArgs = terminator === undefined ? [] : args.slice(terminator.index + 1);
  const words = positionals.slice(0, positionals.length - extraArgs.length);
  if (values.help === true) return "help";
  const [kind, model, ...rest] = words;
  if (kind !== "full" && kind !== "lora") {
    throw new UsageError(
      kind === undefined
        ? "say what to serve: full <model> or lora <base> --adapter name=path"
        : `unknown kind "${kind}": use full or lora`,
      subcommand,
    );
  }
  const helpFor = `${subcommand} ${kind}`;
  if (model === undefined) throw new UsageError(`missing ${kind === "full" ? "<model>" : "<base>"}`, helpFor);
  if (rest.length > 0) {
    throw new UsageError(`unexpected argument "${rest[0]}"; put vLLM's own options after --`, helpFor);
  }
  const apiKeyEnv = values["api-key-env"] as string | undefined;
  if (apiKeyEnv !== undefined && !ENV_NAME.test(apiKeyEnv)) {
    throw new UsageError(
      `--api-key-env: must name an environment variable such as MY_VLLM_KEY, not hold the key (given ${describeShape(apiKeyEnv)})`,
      helpFor,
    );
  }
  const common = {
    ...defined("host", values.host),
    ...defined("port", numberOrRaw(values.port)),
    ...defined("servedModelName", values["served-model-name"]),
    ...engineValues(values, kind, helpFor),
    ...(extraArgs.length > 0 ? { extraArgs } : {}),
  };
  if (kind === "full") {
    if (values.adapter !== undefined)
      throw new UsageError("--adapter: is for lora; a full model has no adapters", helpFor);
    const full: ServeOptions = { kind, model, ...common };
    return { kind, options: full, apiKeyEnv, values };
  }
  const adapters = ((values.adapter as string[] | undefined) ?? []).map((text, index) =>
    parseAdapter(text, index, helpFor),
  );
  const lora: ServeOptions = {
    kind,
    baseModel: model,
    adapters,
    ...common,
  };
  return { kind, options: lora, apiKeyEnv, values };
}

export function parseCommandLine(
  subcommand: string,
  args: readonly string[],
  options: ParseArgsConfig["options"],
) {
  try {
    return parseArgs({ args: [...args], options, allowPositionals: true, strict: true, tokens: true }) as {
      values: Values;
      positionals: string[];
      tokens: { kind: string; index: number }[];
    };
  } catch (error) {
    // parseArgs' messages are clear but long; keep the first sentence.
    const message = error instanceof Error ? (error.message.split(". ")[0] ?? error.message) : String(error);
    throw new UsageError(message.replace(/\.$/, ""), subcommand);
  }
}

/** The engine options given as flags, by their serve-kit names; values stay raw for the builder's rules. */
export function engineValues(values: Values, kind: "full" | "lora", helpFor: string): Record<string, never> {
  const engine: Record<string, unknown> = {};
  for (const option of ENGINE_OPTION_LIST) {
    const name = option.flag.slice(2);
    const value =
      option.cli.valueName !== null
        ? numberOrRaw(values[name])
        : values[`no-${name}`] === true
          ? values[name] === true
            ? refuseBoth(name, helpFor)
            : false
          : values[name];
    if (value === undefined) continue;
    if (option.loraOnly && kind === "full") throw new UsageError(`--${name}: is for lora`, helpFor);
    engine[option.key] = value;
  }
  return engine as Record<string, never>;
}

function refuseBoth(name: string, helpFor: string): never {
  throw new UsageError(`--${name} and --no-${name}: give one`, helpFor);
}

function parseAdapter(text: string, index: number, helpFor: string): LoraAdapter {
  // The name cannot hold "=", so the first "=" ends it; the path may hold more.
  const at = text.indexOf("=");
  if (at <= 0) {
    throw new UsageError(
      `--adapter #${index + 1}: must be name=path (given ${JSON.stringify(text)})`,
      helpFor,
    );
  }
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

/** A plain decimal number becomes a number; anything else stays a string for the builder to refuse. */
export function numberOrRaw(value: unknown): unknown {
  // Any run of digits becomes a number (1e21 included), so the library's bound decides, with its message.
  return typeof value === "string" && /^(\d{1,30}(\.\d{1,30})?|\.\d{1,30})$/.test(value)
    ? Number(value)
    : value;
}

/**
 * `{ [key]: value }` when the value was given. Typed `never` so a raw string (say `--port abc`) can go where
 * the builder expects a number: the builder checks every value at run time and names the rule it broke.
 */
function defined<K extends string>(key: K, value: unknown): Partial<Record<K, never>> {
  return (value === undefined ? {} : { [key]: value }) as Partial<Record<K, never>>;
}

function describeShape(value: string): string {
  return `a ${value.length}-character value`;
}

/** The builder's field names, as the flags a CLI user typed. */
export function cliField(field: string): string {
  const adapter = /^adapters\[(\d+)\]\.(name|path)$/.exec(field);
  if (adapter) return `--adapter #${Number(adapter[1]) + 1} ${adapter[2]}`;
  const extra = /^extraArgs\[(\d+)\]$/.exec(field);
  if (extra) return `argument ${Number(extra[1]) + 1} after --`;
  const names: Record<string, string> = {
    ...Object.fromEntries(ENGINE_OPTION_LIST.map((option) => [option.key, option.flag])),
    model: "<model>",
    baseModel: "<base>",
    host: "--host",
    port: "--port",
    servedModelName: "--served-model-name",
    adapters: "--adapter",
    apiKey: "the key in --api-key-env",
    "docker.image": "--image",
    "docker.hfCacheDir": "--hf-cache",
    listen: "--listen",
    upstreams: "--upstream",
    readTimeoutSeconds: "--read-timeout",
  };
  const upstream = /^upstreams\[(\d+)\]$/.exec(field);
  if (upstream) return `--upstream #${Number(upstream[1]) + 1}`;
  return names[field] ?? field;
}
