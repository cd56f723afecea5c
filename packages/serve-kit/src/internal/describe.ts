const MAX_SHOWN = 80;

/** A short, printable description of a value for an error message. */
export function describeValue(value: unknown): string {
  if (typeof value === "string") {
    const shown = value.length > MAX_SHOWN ? `${value.slice(0, MAX_SHOWN)}…` : value;
    return JSON.stringify(shown);
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
