// Error messages say what was given without echoing anything long or secret: a type, a length, or a
// short value. Callers never pass a token here.

const SHORT = 60;

/** A short description of a value's shape for an error message, e.g. `number 1.5`, `string of 2049 code points`. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (typeof value === "string") {
    const length = codePointLength(value);
    if (length === 0) return "an empty string";
    return length <= SHORT ? `string ${JSON.stringify(value)}` : `string of ${length} code points`;
  }
  if (typeof value === "number" || typeof value === "boolean") return `${typeof value} ${String(value)}`;
  if (Array.isArray(value)) return `array of ${value.length} items`;
  return typeof value;
}

/** The length of a string as JSON Schema counts it: Unicode code points, not UTF-16 units. */
export function codePointLength(value: string): number {
  let length = 0;
  for (const _ of value) length++;
  return length;
}
