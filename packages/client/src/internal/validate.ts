import { codePointLength, describeValue } from "@finetune-studio/internal";
import { StudioValidationError } from "../errors.js";

// Input is checked before anything is sent. The bounds come from the contract (the generated
// `studioLimits`/`chatLimits` of @finetune-studio/types), so a mistake fails here with the field's name
// instead of as a 4xx from the server (or, for ids, as a different URL), and no number is restated here.

/** The JSON Schema keywords a generated limit may carry. */
export interface Limit {
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly multipleOf?: number;
  readonly format?: string;
  readonly pattern?: string;
}

/** RFC 4122 text form, any version, either case: what JSON Schema's `format: uuid` accepts. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** setTimeout fires at once for delays above 2^31 - 1 ms, so longer timeouts cannot be honoured. */
export const MAX_TIMER_MS = 2_147_483_647;

export function isUuid(value: unknown): value is string {
  return typeof value === "string" && UUID.test(value);
}

/** A string within the limit's length (in code points), format and pattern; `null` too when `nullable`. */
export function checkString(field: string, value: unknown, limit: Limit, nullable = false): void {
  if (value === null && nullable) return;
  if (typeof value === "string" && stringFits(value, limit)) return;
  const rule = limit.format === "uuid" ? "a uuid (8-4-4-4-12 hexadecimal digits)" : stringRule(limit);
  throw new StudioValidationError(
    field,
    `must be ${rule}${nullable ? ", or null" : ""}`,
    describeValue(value),
  );
}

type NumberKeyword = "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf";
/** Each numeric keyword: whether a value meets the bound, and how a rule says it. */
const NUMBER_RULES: [NumberKeyword, (value: number, bound: number) => boolean, string][] = [
  ["minimum", (value, bound) => value >= bound, "at least"],
  ["maximum", (value, bound) => value <= bound, "at most"],
  ["exclusiveMinimum", (value, bound) => value > bound, "above"],
  ["exclusiveMaximum", (value, bound) => value < bound, "below"],
  ["multipleOf", (value, bound) => (value / bound) % 1 === 0, "a multiple of"],
];

/** A finite number (an integer when `integer`) within the limit's bounds. */
export function checkNumber(field: string, value: unknown, limit: Limit, integer = false): void {
  const rules = NUMBER_RULES.filter(([keyword]) => limit[keyword] !== undefined);
  if (
    typeof value === "number" &&
    (integer ? Number.isInteger(value) : Number.isFinite(value)) &&
    rules.every(([keyword, meets]) => meets(value, limit[keyword] as number))
  )
    return;
  const bounds = rules.map(([keyword, , words]) => ` ${words} ${limit[keyword]}`).join(" and");
  const rule = `must be ${integer ? "an integer" : "a finite number"}${bounds}`;
  throw new StudioValidationError(field, rule, describeValue(value));
}

/** An array with as many items as the limit allows. */
export function checkArray(field: string, value: unknown, limit: Limit): asserts value is unknown[] {
  const { minItems = 0, maxItems = Number.POSITIVE_INFINITY } = limit;
  if (Array.isArray(value) && value.length >= minItems && value.length <= maxItems) return;
  const most = maxItems === Number.POSITIVE_INFINITY ? "" : ` and at most ${maxItems}`;
  const rule = `must be an array of at least ${minItems} item${minItems === 1 ? "" : "s"}${most}`;
  throw new StudioValidationError(field, rule, describeValue(value));
}

function stringFits(value: string, limit: Limit): boolean {
  if (limit.format === "uuid" && !UUID.test(value)) return false;
  const { minLength = 0, maxLength = Number.POSITIVE_INFINITY } = limit;
  // A code point is one or two UTF-16 units: count them only when the unit count does not settle it.
  if (value.length / 2 > maxLength) return false;
  if (value.length > maxLength || value.length / 2 < minLength) {
    const length = codePointLength(value);
    if (length < minLength || length > maxLength) return false;
  }
  if (limit.pattern !== undefined && !new RegExp(limit.pattern, "u").test(value)) return false;
  return true;
}

function stringRule(limit: Limit): string {
  const { minLength = 0, maxLength } = limit;
  let rule = minLength > 0 && maxLength === undefined ? "a non-empty string" : "a string";
  if (maxLength !== undefined)
    rule += ` of ${minLength > 0 ? `${minLength} to ${maxLength}` : `at most ${maxLength}`} Unicode code points`;
  else if (minLength > 1) rule += ` of at least ${minLength} Unicode code points`;
  if (limit.pattern !== undefined) rule += ` matching /${limit.pattern}/`;
  return rule;
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
  if (/[\u0000-\u001f\u007f]/.test(value) || /[^\u0000-\u00ff]/.test(value)) {
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
  if (value === undefined) return;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0 || value > max) {
    throw new StudioValidationError(
      field,
      `must be a number of ${unit} above 0 and at most ${max}`,
      describeValue(value),
    );
  }
}

export function assertRetries(field: string, value: unknown): asserts value is number | undefined {
  if (value === undefined) return;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw new StudioValidationError(field, "must be an integer of 0 or more", describeValue(value));
  }
}

export function assertSignal(field: string, value: unknown): asserts value is AbortSignal | undefined {
  if (value === undefined) return;
  if (typeof value !== "object" || value === null || typeof (value as AbortSignal).aborted !== "boolean") {
    throw new StudioValidationError(field, "must be an AbortSignal", describeValue(value));
  }
}

export function assertFunction(field: string, value: unknown): void {
  if (value !== undefined && typeof value !== "function") {
    throw new StudioValidationError(field, "must be a function", describeValue(value));
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** An options object: a plain object, or a StudioValidationError naming `field`. */
export function checkObject(field: string, value: unknown): Record<string, unknown> {
  if (!isPlainObject(value))
    throw new StudioValidationError(field, "must be an object", describeValue(value));
  return value;
}
