// A command's whole command line as data, as unjs/citty's `defineCommand({ args })` declares it: its
// positionals, its flags, which of them one must give, which go only together and which exclude each other.
// The parser checks these rules, and the usage lines of the help and the main help are written from them.
import { type Flag, type ParsedFlags, parseFlags } from "./flags.js";
import { UsageError } from "./io.js";
import { quoted } from "./values.js";

/** A word that is not a flag: `URL` in `status URL ...`. */
export interface Positional {
  readonly kind: "positional";
  /** How usage shows it: `URL`. */
  readonly valueName: string;
  /** What it is, for its usage line. */
  readonly help: string;
  /** It may be given more than once (`URL ...`). */
  readonly many?: boolean;
  /** The message when it is not given; `missing URL: <help>` unless said. */
  readonly missing?: string;
}

export function positional(valueName: string, help: string, many = false, missing?: string): Positional {
  return { kind: "positional", valueName, help, many, ...(missing === undefined ? {} : { missing }) };
}

type Arg = Flag | Positional;

/** `--flag: needs --other` (or `goes with`), and why when the other is not obvious. */
export interface Needs {
  readonly flag: Flag;
  readonly needs: Flag;
  readonly verb?: "needs" | "goes with";
  readonly why?: string;
}

/** `--flag: does not apply to --other, why`. */
export interface Excludes {
  readonly flags: readonly Flag[];
  readonly by: Flag;
  readonly why: string;
}

export interface CommandArgs {
  /** The words after `studio-serve` that name the command (or one form of it): `bench`, `command full`. */
  readonly name: string;
  /** In order; each must be given, unless `required` says which of them and the flags name the target. */
  readonly positionals: readonly Positional[];
  readonly flags: readonly Flag[];
  /** What usage shows after the options: `[-- vllm options]`. */
  readonly trailing?: string;
  /** What this form does, beside its usage line, when no `required` way is there to say it. */
  readonly note?: string;
  /**
   * What the command acts on: one of these must be given (`missing` says so when none is); with
   * `exclusive`, only one.
   */
  readonly required?: {
    readonly args: readonly Arg[];
    readonly exclusive?: boolean;
    readonly missing: string;
  };
  /**
   * Flags every use of the command gives (`--listen P`): usage shows them, and the parser asks for them
   * unless `builderChecks` says the library's own rule does (its message names the flag and the rule).
   */
  readonly requiredFlags?: readonly Flag[];
  readonly builderChecks?: boolean;
  /** Groups of flags of which at most one may be given; `what` ends the message (` way to end a run`). */
  readonly oneOf?: readonly { readonly flags: readonly Flag[]; readonly what?: string }[];
  readonly needs?: readonly Needs[];
  readonly excludes?: readonly Excludes[];
}

/** A command line read by its declaration: the flags, the positionals counted, and the rules kept. */
export function parseCommand(args: readonly string[], spec: CommandArgs): ParsedFlags {
  const parsed = parseFlags(args, spec.flags);
  if (parsed.help) return parsed;
  const words = parsed.positionals;
  const takes = spec.positionals.some((arg) => arg.many) ? Number.POSITIVE_INFINITY : spec.positionals.length;
  if (words.length > takes) throw new UsageError(`unexpected argument ${quoted(words[takes])}`);
  const missing = spec.required === undefined ? spec.positionals[words.length] : undefined;
  if (missing !== undefined && missing.many !== true)
    throw new UsageError(missing.missing ?? `missing ${missing.valueName}: ${missing.help}`);
  const given = (arg: Arg) => ("kind" in arg ? words.length > 0 : parsed.given(arg));
  if (spec.required !== undefined) {
    const named = spec.required.args.filter(given);
    if (named.length === 0) throw new UsageError(spec.required.missing);
    if (spec.required.exclusive === true && named.length > 1) {
      throw new UsageError(`give ${named.map(argText).join(" or ")}, not both`);
    }
  }
  for (const flag of spec.builderChecks === true ? [] : (spec.requiredFlags ?? [])) {
    if (!given(flag)) throw new UsageError(`give ${argText(flag)}: ${argHelp(flag)}`);
  }
  for (const group of spec.oneOf ?? []) {
    const named = group.flags.filter(given);
    if (named.length > 1)
      throw new UsageError(`--${named[0]?.name} and --${named[1]?.name}: give one${group.what ?? ""}`);
  }
  for (const rule of spec.needs ?? []) {
    if (given(rule.flag) && !given(rule.needs)) {
      const why = rule.why === undefined ? "" : `, ${rule.why}`;
      throw new UsageError(`--${rule.flag.name}: ${rule.verb ?? "needs"} ${flagText(rule.needs)}${why}`);
    }
  }
  for (const rule of spec.excludes ?? []) {
    const named = rule.flags.find((flag) => given(flag) && given(rule.by));
    if (named !== undefined)
      throw new UsageError(`--${named.name}: does not apply to --${rule.by.name}, ${rule.why}`);
  }
  return parsed;
}

/** `--slo`, `--conversations N`: a flag as a message names it, its value's name when that is one word. */
function flagText(flag: Flag): string {
  const usage = flag.usage ?? `--${flag.name}`;
  return /^--[\w-]+( [A-Z][A-Z0-9.]*)?$/.test(usage) ? usage : `--${flag.name}`;
}

/** `URL`, `URL ...`, `--launch P`, `--target host:port ...`: an argument as usage shows it. */
function argText(arg: Arg): string {
  if ("kind" in arg) return arg.many === true ? `${arg.valueName} ...` : arg.valueName;
  const usage = arg.usage ?? `--${arg.name}`;
  return arg.repeatable === true ? `${usage} ...` : usage;
}

/** What an argument is, for its usage line: a positional's help, or a flag's first help line. */
function argHelp(arg: Arg): string {
  return arg.help.split("\n")[0] ?? "";
}

/**
 * The usage lines of a command's forms: for each, one line per way to name what it acts on (with what that
 * is), each followed by the positionals it does not replace and `[options]`; a form without such ways is one
 * line, its positionals in order and its note beside it.
 */
export function usageLines(...forms: readonly CommandArgs[]): string {
  const lines = forms.flatMap(formLines);
  const width = Math.max(...lines.map(([usage]) => usage.length)) + 3;
  return `Usage:\n${lines.map(([usage, help]) => `  ${usage.padEnd(width)}${help}`.trimEnd()).join("\n")}`;
}

function formLines(spec: CommandArgs): (readonly [string, string])[] {
  const always = (spec.requiredFlags ?? []).map(argText);
  const tail = [optionsText(spec), ...(spec.trailing === undefined ? [] : [spec.trailing])];
  if (spec.required === undefined) {
    const words = [`studio-serve ${spec.name}`, ...spec.positionals.map(argText), ...always, ...tail];
    return [[words.filter((word) => word !== "").join(" "), spec.note ?? ""]];
  }
  const ways = spec.required.args;
  const exclusive = spec.required.exclusive === true ? ways : [];
  return ways.map((way) => {
    const rest = spec.positionals
      .filter((arg) => arg !== way && !exclusive.includes(arg))
      .map((arg) => `[${argText(arg)}]`);
    const words = [`studio-serve ${spec.name}`, argText(way), ...always, ...rest, ...tail];
    return [words.filter((word) => word !== "").join(" "), argHelp(way)] as const;
  });
}

/** The command's line in the main help: its ways joined by `|`, and `summary` (a form's note unless given). */
export function synopsisOf(spec: CommandArgs, summary = spec.note ?? ""): readonly [string, string] {
  const { required } = spec;
  const waysText =
    required === undefined
      ? spec.positionals.map(argText).join(" ")
      : required.args.map(argText).join(required.exclusive === true ? "|" : " | ");
  const always = (spec.requiredFlags ?? []).map(argText);
  const words = [spec.name, waysText, ...always, optionsText(spec), spec.trailing ?? ""];
  return [words.filter((word) => word !== "").join(" "), summary];
}

/** A command of several forms in the main help: a line each, the summary beside the first. */
export function synopsesOf(forms: readonly CommandArgs[], summary: string): (readonly [string, string])[] {
  return forms.map((form, index) => synopsisOf(form, index === 0 ? summary : ""));
}

/** `[options]`, or each flag when a command takes three or fewer: `[--host H] [--port P] [--json]`. */
function optionsText(spec: CommandArgs): string {
  const named = new Set<Arg>([...(spec.required?.args ?? []), ...(spec.requiredFlags ?? [])]);
  const rest = spec.flags.filter((flag) => !named.has(flag) && flag.usage !== undefined);
  return rest.length <= 3 ? rest.map((flag) => `[${argText(flag)}]`).join(" ") : "[options]";
}
