import { codePointLength, describeValue } from "@finetune-studio/internal";
import { StudioValidationError } from "../errors.js";

// Input is checked before anything is sent. The bounds come from the contract (the generated limits of
// @finetune-studio/types), so a mistake fails here with the field's name instead of as a 4xx from the
// server (or, for ids, as a different URL), and no number is restated here.

type Bound =
  | "minimum"
  | "maximum"
  | "exclusiveMinimum"
  | "exclusiveMaximum"
  | "multipleOf"
  | "minLength"
  | "maxLength"
  | "minItems"
  | "maxItems";

/** The JSON Schema keywords a generated limit may carry. */
export type Limit = { readonly [keyword in Bound]?: number } & {
  readonly format?: string;
  readonly pattern?: string;
  readonly type?: string;
};

/** Each bound: whether a measure (the number, the code points, the items) meets it, and how a rule says it. */
const BOUNDS: [Bound, (measure: number, bound: number) => boolean, string][] = [
  ["minimum", (value, bound) => value >= bound, "at least"],
  ["maximum", (value, bound) => value <= bound, "at most"],
  ["exclusiveMinimum", (value, bound) => value > bound, "above"],
  ["exclusiveMaximum", (value, bound) => value < bound, "below"],
  ["multipleOf", (value, bound) => (value / bound) % 1 === 0, "a multiple of"],
  ["minLength", (value, bound) => value >= bound, "at least"],
  ["maxLength", (value, bound) => value <= bound, "at most"],
  ["minItems", (value, bound) => value >= bound, "at least"],
  ["maxItems", (value, bound) => value <= bound, "at most"],
];

/** RFC 4122 text form, any version, either case: what JSON Schema's `format: uuid` accepts. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** setTimeout fires at once for delays above 2^31 - 1 ms, so longer timeouts cannot be honoured. */
export const MAX_TIMER_MS = 2_147_483_647;

export function refuse(field: string, rule: string, value: unknown): StudioValidationError {
  return new StudioValidationError(field, rule, describeValue(value));
}

/**
 * A value within one generated limit (`null` too when `nullable`). Its keywords say what it is: item counts
 * bound an array, lengths, a pattern or a format a string (lengths in code points), the rest a number (a
 * whole one for `type: integer`). A limit the contract dropped checks nothing: the server judges.
 */
export function checkLimit(field: string, value: unknown, limit: Limit = {}, nullable = false): void {
  if (value === null && nullable) return;
  const bounds = BOUNDS.filter(([keyword]) => limit[keyword] !== undefined);
  const { format, pattern, type } = limit;
  const kind =
    limit.minItems !== undefined || limit.maxItems !== undefined
      ? "array"
      : limit.minLength !== undefined || limit.maxLength !== undefined || pattern || format
        ? "string"
        : bounds.length > 0 || type === "integer"
          ? "number"
          : undefined;
  let measure: number | undefined;
  if (kind === undefined) return;
  if (kind === "array") {
    if (Array.isArray(value)) measure = value.length;
  } else if (kind === "number") {
    if (typeof value === "number" && (type === "integer" ? Number.isInteger : Number.isFinite)(value))
      measure = value;
  } else if (
    typeof value === "string" &&
    (format !== "uuid" || UUID.test(value)) &&
    (pattern === undefined || new RegExp(pattern, "u").test(value))
  ) {
    measure = bounds.length > 0 ? codePointLength(value) : 0;
  }
  if (measure !== undefined && bounds.every(([keyword, meets]) => meets(measure, limit[keyword] as number)))
    return;
  const words = bounds.map(([keyword, , says]) => ` ${says} ${limit[keyword]}`).join(" and");
  const rule =
    kind === "array"
      ? `an array of${words} items`
      : kind === "number"
        ? `${type === "integer" ? "an integer" : "a finite number"}${words}`
        : format === "uuid"
          ? "a uuid (8-4-4-4-12 hexadecimal digits)"
          : `a string${words && ` of${words} Unicode code points`}${pattern ? ` matching /${pattern}/` : ""}`;
  throw refuse(field, `must be ${rule}${nullable ? ", or null" : ""}`, value);
}

/** A secret that goes into an `Authorization` header: never echoed, whatever is wrong with it. */
export function assertCredential(field: string, value: unknown, required: boolean): void {
  if (value === undefined && !required) return;
  if (typeof value !== "string" || value.trim() === "") {
    const got = typeof value === "string" ? "an empty string" : value === null ? "null" : typeof value;
    throw new StudioValidationError(field, "must be a non-empty string", got);
  }
  // A header value cannot hold control characters; fetch would refuse it with a message quoting it.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this looks for
  if (/[\u0000-\u001f\u007f]|[^\u0000-\u00ff]/.test(value)) {
    throw new StudioValidationError(
      field,
      "must not contain control characters or characters outside Latin-1",
    );
  }
}

/** A positive whole-or-fractional count below the timer limit (milliseconds, bytes...). */
export function assertPositive(
  field: string,
  value: unknown,
  max = MAX_TIMER_MS,
  unit = "milliseconds",
): asserts value is number | undefined {
  if (value !== undefined && !(typeof value === "number" && value > 0 && value <= max)) {
    throw refuse(field, `must be a number of ${unit} above 0 and at most ${max}`, value);
  }
}

export function assertRetries(field: string, value: unknown): asserts value is number | undefined {
  if (value !== undefined && !(Number.isInteger(value) && (value as number) >= 0)) {
    throw refuse(field, "must be an integer of 0 or more", value);
  }
}

export function assertSignal(field: string, value: unknown): asserts value is AbortSignal | undefined {
  if (value !== undefined && typeof (value as AbortSignal | null)?.aborted !== "boolean") {
    throw refuse(field, "must be an AbortSignal", value);
  }
}

export function assertFunction(field: string, value: unknown): void {
  if (value !== undefined && typeof value !== "function") throw refuse(field, "must be a function", value);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** An options object: a plain object, or a StudioValidationError naming `field`. */
export function checkObject(
  field: string,
  value: unknown,
  rule = "must be an object",
): Record<string, unknown> {
  if (!isPlainObject(value)) throw refuse(field, rule, value);
  return value;
}
