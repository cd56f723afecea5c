// Error messages say what was given without echoing anything long, secret or able to steer a terminal:
// a short quoted string, a number, or only the shape of the value. A secret goes to `describeSecret`.

/** Strings up to this many code points are shown quoted; longer ones by their length only. */
const SHOWN_CODE_POINTS = 60;

// What JSON.stringify leaves raw but a terminal acts on: DEL and the C1 controls (U+0085 is a line break to
// some), the bidirectional overrides and isolates (U+202E reverses what follows), and U+2028/U+2029.
const UNSAFE_IN_TERMINAL = /[\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

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

/** A string as a JSON literal, with every character a terminal would act on written as an escape. */
function quote(value: string): string {
  return JSON.stringify(value).replace(
    UNSAFE_IN_TERMINAL,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
