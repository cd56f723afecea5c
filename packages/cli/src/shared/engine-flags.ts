// vLLM's engine options as flags: each comes from serve-kit's option table (its flag, value name and help
// line), so `command`, `launch`, `plan` and `stack` take the same ones and a new option is one table entry.
import { ENGINE_OPTION_LIST } from "@finetune-studio/serve-kit";
import { declaredValue, type Flag, type FlagReader, type RawValue, switchFlag, textFlag } from "./flags.js";
import { UsageError } from "./io.js";
import { numberOrRaw } from "./raw-values.js";

/** Each engine option's flag; a switch also has its `--no-` form (not listed in the help on its own). */
export const ENGINE_FLAGS: readonly Flag[] = ENGINE_OPTION_LIST.flatMap((option): Flag[] => {
  const name = option.flag.slice(2);
  const { valueName, help } = option.cli;
  if (valueName !== null) return [textFlag(name, { valueName, help, field: option.key })];
  return [
    switchFlag(name, help, undefined, option.key),
    { ...switchFlag(`no-${name}`, help, undefined, option.key), usage: undefined },
  ];
});

/** The engine options' flags in one list, for a help text that points to `command --help` for their lines. */
export const ENGINE_FLAG_LIST = ENGINE_OPTION_LIST.map((option) =>
  option.cli.valueName === null ? `--[no-]${option.flag.slice(2)}` : `${option.flag} ${option.cli.valueName}`,
).join(", ");

/** The engine flags that apply to LoRA only, or to both kinds of serve. */
export function engineFlagsFor(loraOnly: boolean): Flag[] {
  const names = new Set(
    ENGINE_OPTION_LIST.filter((option) => option.loraOnly === loraOnly).map((option) => option.flag.slice(2)),
  );
  return ENGINE_FLAGS.filter((flag) => names.has(flag.name));
}

/** Each engine option's flag, and its `--no-` form when it is a switch. */
const OPTION_FLAGS = ENGINE_OPTION_LIST.map((option) => {
  const name = option.flag.slice(2);
  return {
    option,
    flag: ENGINE_FLAGS.find((flag) => flag.name === name) as Flag,
    negated: ENGINE_FLAGS.find((flag) => flag.name === `no-${name}`),
  };
});

/**
 * The engine options given as flags, by their serve-kit names; values stay raw for the builder's rules.
 * Each is read through its declaration (`parsed.get`), when the command declares it.
 */
export function engineValues(
  parsed: FlagReader,
  kind: "full" | "lora",
  helpFor?: string,
): Record<string, never> {
  const read = (flag: Flag): RawValue => declaredValue(parsed, flag) as RawValue;
  const engine: Record<string, unknown> = {};
  for (const { option, flag, negated } of OPTION_FLAGS) {
    const name = flag.name;
    let value: unknown;
    if (negated === undefined) value = numberOrRaw(read(flag));
    else if (read(negated) === true) {
      if (read(flag) === true) throw new UsageError(`--${name} and --no-${name}: give one`, helpFor);
      value = false;
    } else value = read(flag) === true ? true : undefined;
    if (value === undefined) continue;
    if (option.loraOnly && kind === "full") throw new UsageError(`--${name}: is for lora`, helpFor);
    engine[option.key] = value;
  }
  return engine as Record<string, never>;
}
