// A command's flags as data: each flag declared once (its name, value rule, default and help line), and the
// parser, the help lines and the error messages read the declaration. node:util's parseArgs does the
// splitting; this layer adds what it lacks: typed values with their rules, a refused repeat, help lines.
import { parseArgs } from "node:util";
import { didYouMean } from "./did-you-mean.js";
import { UsageError } from "./io.js";
import { quoted, refuse, wholeNumber, wholeSeconds } from "./values.js";

/** A flag's value as parseArgs gives it: text, a switch, every use of a repeatable flag, or not given. */
export type RawValue = string | boolean | string[] | undefined;

export interface Flag<T = unknown> {
  /** Its name without the dashes, as typed: `port`, `api-key-env`. */
  readonly name: string;
  /** A switch (`--json`) or a flag that takes a value (`--port 8000`). */
  readonly type: "string" | "boolean";
  /** Each use adds a value (`--adapter`, `--upstream`); any other flag given twice with a value is refused. */
  readonly repeatable?: boolean;
  readonly short?: string;
  /** How the help shows it, `--port P`; undefined for a flag the help lists elsewhere. */
  readonly usage: string | undefined;
  /** Its help line; more lines after `\n`. Ends with the default when it has one. */
  readonly help: string;
  /** The default as the help shows it, when the flag has one. */
  readonly shownDefault?: string;
  /**
   * The library option the value goes to (`readTimeoutSeconds`, `servers`), when a serve-kit builder checks
   * it: the builder's error names that field, and the message names this flag instead.
   */
  readonly field?: string;
  /** The value the command gets: the rule applied, or the default when the flag was not given. */
  read(raw: RawValue): T;
}

interface Described {
  /** `P` in `--port P`. */
  valueName: string;
  help: string;
  /** The library option it sets, for messages (see Flag.field). */
  field?: string;
  /**
   * The default the code applies when the flag is not given (a library's, read from its constant), for the
   * help to end with: `(default 600)`. The value stays undefined: the library applies its own default.
   */
  shows?: string | number;
}

function usageOf(name: string, valueName?: string): string {
  return valueName === undefined ? `--${name}` : `--${name} ${valueName}`;
}

/** The help line with the default said last: `... (default 8000)`. */
function withDefault(help: string, fallback: unknown): string {
  // A help line that still says its default itself is not made to say it twice.
  if (fallback === undefined || help.includes(`(default ${fallback})`)) return help;
  return `${help} (default ${fallback})`;
}

/** `--json`: on or off. */
export function switchFlag(name: string, help: string, short?: string, field?: string): Flag<boolean> {
  return {
    name,
    type: "boolean",
    ...(short === undefined ? {} : { short }),
    ...(field === undefined ? {} : { field }),
    usage: usageOf(name),
    help,
    read: (raw) => raw === true,
  };
}

/** A value taken as typed (a path, a name), or undefined when not given. */
export function textFlag(
  name: string,
  { valueName, help, field, shows }: Described,
): Flag<string | undefined> {
  return {
    name,
    type: "string",
    ...(field === undefined ? {} : { field }),
    usage: usageOf(name, valueName),
    help: withDefault(help, shows),
    ...(shows === undefined ? {} : { shownDefault: String(shows) }),
    read: (raw) => (typeof raw === "string" ? raw : undefined),
  };
}

/** A repeatable value: every use, in order. */
export function listFlag(name: string, { valueName, help, field }: Described): Flag<string[]> {
  return {
    name,
    type: "string",
    ...(field === undefined ? {} : { field }),
    repeatable: true,
    usage: usageOf(name, valueName),
    help,
    read: (raw) => (Array.isArray(raw) ? raw : []),
  };
}

/** A value read by `rule` (which names `--name` when it refuses), or `fallback` when not given. */
export function ruleFlag<T, D extends T | undefined = undefined>(
  name: string,
  described: Described & { fallback?: D },
  rule: (text: string, flag: string) => T,
): Flag<T | D> {
  const { valueName, help, fallback, field, shows } = described;
  const shown = fallback === undefined ? (shows === undefined ? undefined : String(shows)) : String(fallback);
  return {
    name,
    type: "string",
    usage: usageOf(name, valueName),
    help: withDefault(help, shown),
    ...(shown === undefined ? {} : { shownDefault: shown }),
    ...(field === undefined ? {} : { field }),
    read: (raw) => (typeof raw === "string" ? rule(raw, `--${name}`) : (fallback as D)),
  };
}

interface Bounds<D> extends Partial<Described> {
  help: string;
  min: number;
  max: number;
  fallback?: D;
}

/** A count: a whole number from `min` to `max`, or `fallback`. */
export function countFlag<D extends number | undefined = undefined>(
  name: string,
  { valueName = "N", help, min, max, fallback, shows }: Bounds<D>,
): Flag<number | D> {
  const described = { valueName, help, ...(shows === undefined ? {} : { shows }) };
  return ruleFlag(name, { ...described, ...(fallback === undefined ? {} : { fallback }) }, (text, flag) =>
    wholeNumber(text, flag, min, max),
  ) as Flag<number | D>;
}

/** A duration: whole seconds from `min` (to `max`, else as long as a timer waits), or `fallback`. */
export function secondsFlag<D extends number | undefined = undefined>(
  name: string,
  { valueName = "S", help, min, max, fallback }: Omit<Bounds<D>, "max"> & { max?: number },
): Flag<number | D> {
  return ruleFlag(name, { valueName, help, ...(fallback === undefined ? {} : { fallback }) }, (text, flag) =>
    wholeSeconds(text, flag, min, max),
  ) as Flag<number | D>;
}

/**
 * The flag that sets a library field, as the user typed it: `readTimeoutSeconds` is `--read-timeout`,
 * `servers[1]` the second `--upstream`, `adapters[0].name` the first `--adapter`'s name. Undefined when no
 * declared flag sets it.
 */
export function flagForField(flags: readonly Flag[], field: string): string | undefined {
  const match = /^(.+?)(?:\[(\d+)\])?(?:\.(\w+))?$/.exec(field);
  const [, key = field, index, part] = match ?? [];
  const flag =
    flags.find((declared) => declared.field === field) ?? flags.find((declared) => declared.field === key);
  if (flag === undefined) return undefined;
  if (flag.field === field) return `--${flag.name}`;
  return [
    `--${flag.name}`,
    index === undefined ? "" : ` #${Number(index) + 1}`,
    part === undefined ? "" : ` ${part}`,
  ].join("");
}

/**
 * The same flag with another help line, for a command that says what it means there; the default kept, or
 * `shows` instead (null: none, where the command applies none).
 */
export function describedAs<T>(flag: Flag<T>, help: string, shows?: string | number | null): Flag<T> {
  const shown = shows === undefined ? flag.shownDefault : shows === null ? undefined : String(shows);
  const { shownDefault: _, ...rest } = flag;
  return { ...rest, help: withDefault(help, shown), ...(shown === undefined ? {} : { shownDefault: shown }) };
}

/** `-h`, `--help`: every command takes it. */
export const HELP_FLAG = switchFlag("help", "this help", "h");

/** A command line read by its flags' declarations. */
export interface ParsedFlags {
  /** The words that are not flags, those after `--` included. */
  positionals: string[];
  /** The words after `--`. */
  extraArgs: string[];
  /** `-h` or `--help` was given. */
  help: boolean;
  /** Each flag's value as typed, by name: for code that passes values on for a library to check. */
  raw: Record<string, RawValue>;
  /** Whether a declared flag was given (a switch: turned on). */
  given(flag: Flag): boolean;
  /** Whether the command declares this flag (by name), for code that several commands share. */
  declares(flag: Flag): boolean;
  /** A declared flag's value: its rule applied, or its default. */
  get<T>(flag: Flag<T>): T;
}

/** What code shared by several commands reads a command line through: each flag by its declaration. */
export type FlagReader = Pick<ParsedFlags, "get" | "declares">;

/** A flag's value when the command declares it, else undefined (`launch` takes no --gpu-count). */
export function declaredValue<T>(reader: FlagReader, flag: Flag<T>): T | undefined {
  return reader.declares(flag) ? reader.get(flag) : undefined;
}

/** The parseArgs option of each declared flag. */
function parseArgsOptions(flags: readonly Flag[]) {
  return Object.fromEntries(
    flags.map((flag) => [
      flag.name,
      {
        type: flag.type,
        ...(flag.repeatable === true || flag.type === "string" ? { multiple: true } : {}),
        ...(flag.short === undefined ? {} : { short: flag.short }),
      },
    ]),
  );
}

type Token = NonNullable<ReturnType<typeof parseArgs>["tokens"]>[number];
type OptionToken = Extract<Token, { kind: "option" }>;

/**
 * One flag as typed, checked against its declaration: known, with a value when it takes one and none when
 * it is a switch. A detached value that starts with a dash is taken only when it looks like a number
 * (`--rate -1`, which the flag's rule then judges); any other (`--model --json`) is the next flag.
 */
function checkedValue(token: OptionToken, flags: readonly Flag[]): string | true {
  const flag = flags.find((declared) => declared.name === token.name);
  if (flag === undefined) {
    const names = flags.map((declared) => declared.name);
    throw new UsageError(
      `unknown option ${quoted(token.rawName)}${token.rawName.startsWith("--") ? didYouMean(token.name, names, "--") : ""}`,
    );
  }
  const typed = `--${flag.name}`;
  if (flag.type === "boolean") {
    if (token.value !== undefined) refuse(typed, "is a switch and takes no value", token.value);
    return true;
  }
  const valueName = flag.usage?.slice(typed.length + 1) || "a value";
  if (token.value === undefined) throw new UsageError(`${typed}: needs ${valueName} after it`);
  if (!token.inlineValue && token.value.startsWith("-") && !/^-[\d.]/.test(token.value)) {
    throw new UsageError(
      `${typed}: needs ${valueName} after it, and ${quoted(token.value)} is a flag (a value that starts with a dash is written ${typed}=VALUE)`,
    );
  }
  return token.value;
}

/** Each declared flag's value as typed, by name: a switch true, a repeatable flag every use in order. */
function rawValues(tokens: readonly Token[], flags: readonly Flag[]): Record<string, RawValue> {
  const given = new Map<string, string[]>();
  const switches = new Set<string>();
  for (const token of tokens) {
    if (token.kind !== "option") continue;
    const value = checkedValue(token, flags);
    if (value === true) switches.add(token.name);
    else given.set(token.name, [...(given.get(token.name) ?? []), value]);
  }
  const raw: Record<string, RawValue> = {};
  for (const flag of flags) {
    const values = given.get(flag.name);
    if (flag.type === "boolean") raw[flag.name] = switches.has(flag.name) ? true : undefined;
    else if (flag.repeatable === true) raw[flag.name] = values;
    else if (values !== undefined && values.length > 1) {
      // A value flag given twice is refused, not silently overridden by its last use.
      throw new UsageError(
        `--${flag.name}: given ${values.length} times (${values.map((text) => quoted(text)).join(", ")}); give it once`,
      );
    } else raw[flag.name] = values?.[0];
  }
  return raw;
}

/**
 * Splits the command line by the declared flags (and `-h`/`--help`). A flag not declared (with the nearest
 * declared name), a value missing or a value flag given twice (unless repeatable) is refused, naming the flag
 * as the user typed it. Node's parseArgs only splits the words (leniently); the rules are checked here, so
 * its own messages never reach the user.
 */
export function parseFlags(args: readonly string[], declared: readonly Flag[]): ParsedFlags {
  const flags = declared.includes(HELP_FLAG) ? declared : [...declared, HELP_FLAG];
  const parsed = parseArgs({
    args: [...args],
    options: parseArgsOptions(flags),
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  const raw = rawValues(parsed.tokens ?? [], flags);
  const terminator = parsed.tokens?.find((token) => token.kind === "option-terminator");
  const extraArgs = terminator === undefined ? [] : args.slice(terminator.index + 1);
  return {
    positionals: parsed.positionals,
    extraArgs,
    help: raw.help === true,
    raw,
    given: (flag) => raw[flag.name] !== undefined,
    declares: (flag) => flags.some((declared) => declared.name === flag.name),
    get<T>(flag: Flag<T>): T {
      // By name: a command may take a shared flag with its own help line (describedAs), same rule.
      if (!flags.some((declared) => declared.name === flag.name))
        throw new Error(`--${flag.name} is not a flag of this command`);
      return flag.read(raw[flag.name]);
    },
  };
}

/** Refuses more than one of these flags: `--a and --b: give one` and what the one is for. */
export function giveOne(parsed: ParsedFlags, flags: readonly Flag[], what = ""): void {
  const given = flags.filter((flag) => parsed.given(flag));
  if (given.length > 1) throw new UsageError(`--${given[0]?.name} and --${given[1]?.name}: give one${what}`);
}

const HELP_COLUMN = 26;

/** `--flag VALUE` and its help, in the help's columns; a long usage puts the help on the next line. */
export function helpLine(usage: string, help: string): string {
  const [first = "", ...more] = help.split("\n");
  const indent = " ".repeat(HELP_COLUMN + 2);
  const head =
    usage.length < HELP_COLUMN - 1
      ? `  ${usage.padEnd(HELP_COLUMN)}${first}`
      : `  ${usage}\n${indent}${first}`;
  return [head, ...more.map((line) => `${indent}${line}`)].join("\n");
}

/** The help lines of these flags, in order. */
export function flagHelp(flags: readonly Flag[]): string {
  return flags
    .filter((flag) => flag.usage !== undefined)
    .map((flag) => helpLine(flag.usage as string, flag.help))
    .join("\n");
}
