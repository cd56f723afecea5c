const MAX_SHOWN = 80;

/** A short, printable description of a value for an error message. */
export function describeValue(value: unknown): string {
  if (typeof value === "string") {
    const shown = value.length > MAX_SHOWN ? `${value.slice(0, MAX_SHOWN)}…` : value;
    // JSON escapes C0; DEL, C1 and bidirectional controls would still steer the terminal an error reaches.
    return JSON.stringify(shown).replace(
      /[\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g,
      (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
    );
  }
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint")
    return String(value);
  if (value === null) return "null";
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return `an array of ${value.length}`;
  return `a ${typeof value}`;
}

/** Describes a secret by its shape only, so the error never carries it. */
export function describeSecret(value: unknown): string {
  if (typeof value === "string") return `a ${value.length}-character string`;
  return describeValue(value);
}
