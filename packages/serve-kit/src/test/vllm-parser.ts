// A small model of how `vllm serve` reads its arguments, written from vLLM's source at commit 00da11e37d1f
// (FlexibleArgumentParser.parse_args in vllm/utils/argparse_utils.py, LoRAParserAction in
// vllm/entrypoints/openai/cli_args.py, and Python's argparse it hands over to). It knows the options the
// builder owns and a handful of others; `-O` shorthands and `--help` are left out. Tests only.

type Nargs = 0 | 1 | "+";

// Every option the builder owns, and real vLLM options that share a prefix with one (so abbreviations are
// as ambiguous here as there), plus the few the generators use.
const OPTIONS: Record<string, { dest: string; nargs: Nargs; value?: boolean }> = {
  "--host": { dest: "host", nargs: 1 },
  "--port": { dest: "port", nargs: 1 },
  "--api-key": { dest: "apiKey", nargs: "+" },
  "--api-server-count": { dest: "apiServerCount", nargs: 1 },
  "--uds": { dest: "uds", nargs: 1 },
  "--uvicorn-log-level": { dest: "uvicornLogLevel", nargs: 1 },
  "--model": { dest: "model", nargs: 1 },
  "--model-impl": { dest: "modelImpl", nargs: 1 },
  "--model-loader-extra-config": { dest: "modelLoaderExtraConfig", nargs: 1 },
  "--served-model-name": { dest: "servedNames", nargs: "+" },
  "--enable-lora": { dest: "enableLora", nargs: 0, value: true },
  "--no-enable-lora": { dest: "enableLora", nargs: 0, value: false },
  "--enable-prefix-caching": { dest: "prefixCaching", nargs: 0, value: true },
  "--no-enable-prefix-caching": { dest: "prefixCaching", nargs: 0, value: false },
  "--enable-log-requests": { dest: "logRequests", nargs: 0, value: true },
  "--lora-modules": { dest: "loraModules", nargs: "+" },
  "--lora-dtype": { dest: "loraDtype", nargs: 1 },
  "--max-lora-rank": { dest: "maxLoraRank", nargs: 1 },
  "--max-loras": { dest: "maxLoras", nargs: 1 },
  "--max-cpu-loras": { dest: "maxCpuLoras", nargs: 1 },
  "--max-model-len": { dest: "maxModelLen", nargs: 1 },
  "--max-num-seqs": { dest: "maxNumSeqs", nargs: 1 },
  "--dtype": { dest: "dtype", nargs: 1 },
  "--gpu-memory-utilization": { dest: "gpuMemoryUtilization", nargs: 1 },
  "--tensor-parallel-size": { dest: "tensorParallelSize", nargs: 1 },
  "-tp": { dest: "tensorParallelSize", nargs: 1 },
  "--hf-overrides": { dest: "hfOverrides", nargs: 1 },
  "--chat-template": { dest: "chatTemplate", nargs: 1 },
  "--config": { dest: "config", nargs: 1 },
  "--config-format": { dest: "configFormat", nargs: 1 },
};

export interface VllmServeArgs {
  model: string;
  servedNames: string[] | undefined;
  loraModules: { name: string; path: string }[] | undefined;
  enableLora: boolean;
  host: string | undefined;
  port: string | undefined;
  apiKey: string[] | undefined;
  uds: string | undefined;
  config: string | undefined;
  /** Every other option set, by destination. */
  others: Record<string, unknown>;
}

/** `usage`: argparse prints usage and exits 2. `crash`: a Python exception (IndexError, ValueError). */
export type VllmParse =
  | { ok: true; args: VllmServeArgs }
  | { ok: false; kind: "usage" | "crash" | "config-file"; message: string };

class ParseFailure extends Error {
  constructor(
    readonly kind: "usage" | "crash" | "config-file",
    message: string,
  ) {
    super(message);
  }
}

/** Parses the words after `vllm serve` as vLLM would. */
export function parseVllmServe(words: readonly string[]): VllmParse {
  try {
    return { ok: true, args: parse(words) };
  } catch (error) {
    if (error instanceof ParseFailure) return { ok: false, kind: error.kind, message: error.message };
    throw error;
  }
}

function parse(input: readonly string[]): VllmServeArgs {
  let args = hoistModel([...input]);
  // `--config FILE` (only that exact word) splices the file's options in: we cannot know them.
  if (args.includes("--config")) throw new ParseFailure("config-file", "options read from a --config file");
  args = args.map(normalizeName);
  args = mergeDottedArguments(args);
  return argparse(args);
}

/** `--model X` anywhere moves X to the front, as the positional model. */
function hoistModel(args: string[]): string[] {
  const index = args.findIndex((arg) => /^--model(=.+|$)/.test(arg));
  if (index === -1) return args;
  const arg = args[index] ?? "";
  if (arg === "--model") {
    const next = args[index + 1];
    if (next === undefined || next.startsWith("-"))
      throw new ParseFailure("usage", "argument --model: expected one argument");
    return [next, ...args.slice(0, index), ...args.slice(index + 2)];
  }
  return [arg.slice("--model=".length), ...args.slice(0, index), ...args.slice(index + 1)];
}

/** `_` becomes `-` in an option's name, from `--` up to the first `.`, before any `=`. */
function normalizeName(arg: string): string {
  if (!arg.startsWith("--")) return arg;
  const equals = arg.indexOf("=");
  const key = equals === -1 ? arg : arg.slice(0, equals);
  const rest = equals === -1 ? "" : arg.slice(equals);
  const dot = key.indexOf(".");
  const name = dot === -1 ? key : key.slice(0, dot);
  const tail = dot === -1 ? "" : key.slice(dot);
  return `--${name.slice(2).replaceAll("_", "-")}${tail}${rest}`;
}

/** `--a.b v` and `--a.b=v` become one `--a '{"b": v}'` per name, appended at the end. */
function mergeDottedArguments(args: string[]): string[] {
  const deleted = new Set<number>();
  const merged = new Map<string, Record<string, unknown>>();
  args.forEach((original, index) => {
    if (deleted.has(index)) return;
    if (original.startsWith("--") && !original.includes(".")) return;
    if (!(original.startsWith("-") && original.includes("."))) return;
    let arg = original;
    let valueText: string;
    if (arg.includes("=")) {
      const at = arg.indexOf("=");
      valueText = arg.slice(at + 1);
      arg = arg.slice(0, at);
      if (!arg.includes(".")) return;
    } else {
      const next = args[index + 1];
      if (next === undefined) throw new ParseFailure("crash", "IndexError: list index out of range");
      valueText = next;
      deleted.add(index + 1);
    }
    let value: unknown;
    if (arg.endsWith("+")) {
      arg = arg.slice(0, -1);
      value = valueText.split(",");
    } else {
      try {
        value = JSON.parse(valueText);
      } catch {
        value = valueText;
      }
    }
    const [key = "", ...keys] = arg.split(".");
    const nested = keys.reduceRight<unknown>((inner, name) => ({ [name]: inner }), value);
    const target = merged.get(key) ?? {};
    deepUpdate(target, nested as Record<string, unknown>);
    merged.set(key, target);
    deleted.add(index);
  });
  const kept = args.filter((_, index) => !deleted.has(index));
  for (const [key, value] of merged) kept.push(key, JSON.stringify(value));
  return kept;
}

function deepUpdate(original: Record<string, unknown>, update: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(update)) {
    const current = original[key];
    if (isPlainObject(value) && isPlainObject(current)) deepUpdate(current, value);
    else if (Array.isArray(value) && Array.isArray(current)) current.push(...value);
    else original[key] = value;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// argparse: no option looks like a negative number, so these are values.
const NEGATIVE_NUMBER = /^-\d+$|^-\d*\.\d+$/;

type Token =
  | { kind: "A"; text: string }
  | { kind: "O"; option: string | undefined; text: string; explicit?: string };

/** Python argparse's classification of one argument. */
function classify(arg: string): Token {
  if (!arg.startsWith("-") || arg === "-") return { kind: "A", text: arg };
  if (arg in OPTIONS) return { kind: "O", option: arg, text: arg };
  if (arg.length === 1) return { kind: "A", text: arg };
  const equals = arg.indexOf("=");
  if (equals !== -1) {
    const name = arg.slice(0, equals);
    if (name in OPTIONS) return { kind: "O", option: name, text: arg, explicit: arg.slice(equals + 1) };
  }
  // allow_abbrev: a unique prefix of a long option.
  if (arg.startsWith("--")) {
    const name = equals === -1 ? arg : arg.slice(0, equals);
    const matches = Object.keys(OPTIONS).filter((option) => option.startsWith(name));
    if (matches.length > 1)
      throw new ParseFailure("usage", `ambiguous option: ${name} could match ${matches.join(", ")}`);
    if (matches.length === 1)
      return {
        kind: "O",
        option: matches[0],
        text: arg,
        ...(equals === -1 ? {} : { explicit: arg.slice(equals + 1) }),
      };
  }
  if (NEGATIVE_NUMBER.test(arg)) return { kind: "A", text: arg };
  if (arg.includes(" ")) return { kind: "A", text: arg };
  return { kind: "O", option: undefined, text: arg };
}

function argparse(args: readonly string[]): VllmServeArgs {
  const tokens = args.map(classify);
  const values: Record<string, unknown> = {};
  const positionals: string[] = [];
  const unrecognized: string[] = [];
  let i = 0;
  while (i < tokens.length) {
    const token = tokens[i] as Token;
    if (token.kind === "A") {
      positionals.push(token.text);
      i += 1;
      continue;
    }
    if (token.option === undefined) {
      unrecognized.push(token.text);
      i += 1;
      continue;
    }
    const spec = OPTIONS[token.option] as { dest: string; nargs: Nargs; value?: boolean };
    i += 1;
    if (spec.nargs === 0) {
      if (token.explicit !== undefined)
        throw new ParseFailure("usage", `argument ${token.option}: ignored explicit argument`);
      values[spec.dest] = spec.value;
      continue;
    }
    if (token.explicit !== undefined) {
      values[spec.dest] = spec.nargs === "+" ? [token.explicit] : token.explicit;
      continue;
    }
    const taken: string[] = [];
    while (i < tokens.length && tokens[i]?.kind === "A" && (spec.nargs === "+" || taken.length < 1)) {
      taken.push((tokens[i] as Token).text);
      i += 1;
    }
    if (taken.length === 0) throw new ParseFailure("usage", `argument ${token.option}: expected an argument`);
    values[spec.dest] = spec.nargs === "+" ? taken : taken[0];
  }
  // The serve subcommand's one positional is the model; anything more is unrecognized.
  const [model, ...extra] = positionals;
  if (model === undefined) throw new ParseFailure("usage", "no model");
  if (extra.length > 0 || unrecognized.length > 0)
    throw new ParseFailure("usage", `unrecognized arguments: ${[...extra, ...unrecognized].join(" ")}`);
  const { servedNames, loraModules, enableLora, host, port, apiKey, uds, config, ...others } = values;
  return {
    model,
    servedNames: servedNames as string[] | undefined,
    loraModules: loraModules === undefined ? undefined : readLoraModules(loraModules as string[]),
    enableLora: enableLora === true,
    host: host as string | undefined,
    port: port as string | undefined,
    apiKey: apiKey as string[] | undefined,
    uds: uds as string | undefined,
    config: config as string | undefined,
    others,
  };
}

/** LoRAParserAction: `name=path` when the item holds `=` and no `,` (exactly one `=`), else JSON. */
function readLoraModules(items: readonly string[]): { name: string; path: string }[] {
  return items
    .filter((item) => item !== "")
    .map((item) => {
      if (item.includes("=") && !item.includes(",")) {
        const parts = item.split("=");
        if (parts.length !== 2) throw new ParseFailure("crash", "ValueError: too many values to unpack");
        return { name: parts[0] ?? "", path: parts[1] ?? "" };
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(item);
      } catch {
        throw new ParseFailure("usage", `Invalid JSON format for --lora-modules: ${item}`);
      }
      if (!isPlainObject(parsed) || typeof parsed.name !== "string" || typeof parsed.path !== "string")
        throw new ParseFailure("usage", `Invalid fields for --lora-modules: ${item}`);
      return { name: parsed.name, path: parsed.path };
    });
}
