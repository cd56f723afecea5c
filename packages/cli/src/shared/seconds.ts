import { inHelp } from "./io.js";
import { wholeSeconds } from "./values.js";

/**
 * A duration flag read where it is used (launch's --timeout and --stop-timeout): whole seconds from `min`,
 * by the one rule in values.ts, or `fallback` when not given; a refusal points to `helpFor`'s help.
 */
export function parseSeconds(
  flag: string,
  value: unknown,
  fallback: number,
  min: number,
  helpFor: string,
): number {
  return value === undefined ? fallback : inHelp(helpFor, () => wholeSeconds(value, `--${flag}`, min));
}
