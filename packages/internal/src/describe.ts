// Error messages say what was given without echoing anything long, secret or able to steer a terminal:
// a short quoted string, a number, or only the shape of the value. A secret goes to `describeSecret`.
import { escapeForTerminal } from "./terminal.js";

/** Strings up to this many code points are shown quoted; longer ones by their length only. */
const SHOWN_CODE_POINTS = 60;

/**
 * A short description of a value for an error message: `"http"`, `70000`, `true`, `null`, `nothing`,
 * `an empty string`, `a string of 2049 code points`, `an array of 3 items`, `an object`.
 */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "nothing";
  if (typeof value === "string") {
    const length = codePointLength(value);
    if (length === 0) return "an empty string";
    return length <= SHOWN_CODE_POINTS ? quote(value) : `a string of ${length} code points`;
  }
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (typeof value === "bigint") return `${value}n`;
  if (Array.isArray(value)) return `an array of ${value.length} ${value.length === 1 ? "item" : "items"}`;
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** Describes a secret by its length only, so the error never carries any of it. */
export function describeSecret(value: unknown): string {
  if (typeof value === "string") return `a ${codePointLength(value)}-character string`;
  return describeValue(value);
}

/** The length of a string as JSON Schema counts it: Unicode code points, not UTF-16 units. */
export function codePointLength(value: string): number {
  let length = 0;
  for (const _ of value) length++;
  return length;
}

/** A string as a JSON literal (which escapes C0 controls), with what else a terminal acts on escaped too. */
function quote(value: string): string {
  return escapeForTerminal(JSON.stringify(value));
}
