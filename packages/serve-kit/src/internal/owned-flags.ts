import { ENGINE_OPTION_LIST, type LoraEngineOptions } from "../options/engine-options.js";

// How vLLM's parser reads an extra argument's option name, and the options the builder owns.
//
// Followed from vLLM's source at commit 00da11e37d1f (main after v0.11, November 2026):
// `FlexibleArgumentParser.parse_args` in vllm/utils/argparse_utils.py and `LoRAParserAction` in
// vllm/entrypoints/openai/cli_args.py. What matters for the guard:
// - every argument that starts with `--` (even one meant as a value) has `_` turned into `-` in its name,
//   from the `--` up to the first `.` (only in the part before `=`);
// - an argument that starts with `-` and holds `.` (before any `=`) is a dotted argument: `--a.b v` (or
//   `--a.b=v`) becomes one more `--a '{"b": v}'` appended at the end, with the next argument taken as its
//   value whatever it is (IndexError when there is none); a trailing `+` makes the value a list;
// - `--config FILE` (exactly that word) splices the YAML file's options into argv before parsing;
// - argparse then reads `--name=value`, and accepts any unambiguous prefix of an option (allow_abbrev is
//   left at its default, True), so `--por 9000` sets `--port`;
// - an argument such as `-1` or `-.5` is not an option (the parser defines no option that looks like a
//   negative number), so argparse hands it to the option before it as a value.

// The flags the builder writes, and the option to use instead. vLLM would take the later value (or, for
// `--model`, move it in front of the positional model), so an extra argument could silently override them.
const COMMON: Record<string, string> = {
  "--host": "the host option",
  "--port": "the port option",
  "--api-key": "the apiKey option, which travels as VLLM_API_KEY and never in argv",
  "--uds": "host and port (a Unix socket would leave the client config pointing nowhere)",
  // A second served name could equal an adapter's name and answer for it with the bare base model.
  "--served-model-name": "the servedModelName option",
};

const STRUCTURE: Record<"full" | "lora", Record<string, string>> = {
  full: {
    "--model": "the model option",
    ...Object.fromEntries(
      ["--enable-lora", "--no-enable-lora", "--lora-modules"].map((flag) => [
        flag,
        "kind 'lora' with adapters",
      ]),
    ),
  },
  lora: {
    "--model": "the baseModel option",
    "--enable-lora": "kind 'lora', which turns it on",
    "--no-enable-lora": "kind 'full' to serve without adapters",
    "--lora-modules": "the adapters option (vLLM keeps only the last --lora-modules)",
  },
};

/**
 * The flags an extra argument may not set for a serve of this kind, and the option to use instead: the
 * builder's own, each engine option's flag (always, or once the option is set: see `ENGINE_OPTIONS`), and
 * the LoRA-only ones for a full serve.
 */
export function ownedFlags(kind: "full" | "lora", engine: LoraEngineOptions): Record<string, string> {
  const owned: Record<string, string> = { ...COMMON, ...STRUCTURE[kind] };
  for (const option of ENGINE_OPTION_LIST) {
    const flags =
      option.cli.valueName === null ? [option.flag, `--no-${option.flag.slice(2)}`] : [option.flag];
    const instead =
      kind === "full" && option.loraOnly
        ? "kind 'lora' with adapters"
        : option.owned === "always" || engine[option.key] !== undefined
          ? `the ${option.key} option`
          : undefined;
    if (instead !== undefined) for (const flag of flags) owned[flag] = instead;
  }
  return owned;
}

/** The option that makes vLLM read a YAML file of options, which the guard could not see. */
export const CONFIG_FLAG = "--config";

/** How vLLM reads one argument that starts with `-`. */
export interface VllmOptionWord {
  /** The option name argparse will look up: `_` turned into `-`, without `=value` or a dotted key. */
  name: string;
  /** `--a.b`: vLLM turns it into another `--a` with a JSON value. */
  dotted: boolean;
  /** The value is inside the word (`--a=v`, `--a.b=v`). */
  inlineValue: boolean;
}

/** Reads an argument the way vLLM's FlexibleArgumentParser does before argparse sees it. */
export function readOptionWord(argument: string): VllmOptionWord | undefined {
  if (!argument.startsWith("-")) return undefined;
  const equals = argument.indexOf("=");
  const key = equals === -1 ? argument : argument.slice(0, equals);
  const dot = key.indexOf(".");
  let name = dot === -1 ? key : key.slice(0, dot);
  if (name.startsWith("--")) name = `--${name.slice(2).replaceAll("_", "-")}`;
  return { name, dotted: dot !== -1, inlineValue: equals !== -1 };
}

/** Whether argparse would resolve `name` to `option`: the option itself or a prefix of it (allow_abbrev). */
export function resolvesTo(name: string, option: string): boolean {
  return name.startsWith("--") && name.length > 2 && option.startsWith(name);
}

/** The owned flag an extra argument would set, in any spelling vLLM's parser accepts, if any. */
export function ownedFlagSetBy(argument: string, owned: Record<string, string>): string | undefined {
  const word = readOptionWord(argument);
  if (word === undefined) return undefined;
  const flags = Object.keys(owned);
  return flags.find((flag) => flag === word.name) ?? flags.find((flag) => resolvesTo(word.name, flag));
}

/** An option word argparse treats as an option: `-x` or `--name`, not `-1`, `-.5` or `-`. */
export function looksLikeOption(argument: string): boolean {
  return /^--?[A-Za-z]/.test(argument);
}
