import { codePointLength, describeValue, MAX_TIMER_MS } from "@finetune-studio/internal";
import { StudioValidationError } from "../errors.js";

// Input is checked before anything is sent, against the contract's generated limits (no number is restated
// here), so a mistake names its field instead of coming back as a 4xx or, for an id, reaching another URL.

type Check = [says: string, meets: (measure: number, bound: number) => boolean];
const atLeast: Check = ["at least", (measure, bound) => measure >= bound];
const atMost: Check = ["at most", (measure, bound) => measure <= bound];
/** Each bound keyword: how a rule says it, and whether a measure (a number, code points, items) meets it. */
const BOUNDS = {
  minimum: atLeast,
  maximum: atMost,
  exclusiveMinimum: ["above", (measure, bound) => measure > bound],
  exclusiveMaximum: ["below", (measure, bound) => measure < bound],
  multipleOf: ["a multiple of", (measure, bound) => (measure / bound) % 1 === 0],
  minLength: atLeast,
  maxLength: atMost,
  minItems: atLeast,
  maxItems: atMost,
} satisfies Record<string, Check>;
type Bound = keyof typeof BOUNDS;
const KEYWORDS = Object.keys(BOUNDS) as Bound[];

/** The JSON Schema keywords a generated limit may carry. */
export type Limit = { readonly [keyword in Bound]?: number } & {
  readonly format?: string;
  readonly pattern?: string;
  readonly type?: string;
};

/** RFC 4122 text form, any version, either case: what JSON Schema's `format: uuid` accepts. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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
  const { format, pattern, type } = limit;
  const bounds = KEYWORDS.filter((keyword) => limit[keyword] !== undefined);
  const meets = (measure: number) =>
    bounds.every((keyword) => BOUNDS[keyword][1](measure, limit[keyword] as number));
  const words = () => bounds.map((keyword) => ` ${BOUNDS[keyword][0]} ${limit[keyword]}`).join(" and");
  const fail = (rule: string) => refuse(field, `must be ${rule}${nullable ? ", or null" : ""}`, value);
  if (limit.minItems !== undefined || limit.maxItems !== undefined) {
    if (Array.isArray(value) && meets(value.length)) return;
    throw fail(`an array of${words()} items`);
  }
  if (limit.minLength !== undefined || limit.maxLength !== undefined || pattern || format) {
    if (
      typeof value === "string" &&
      (format !== "uuid" || UUID.test(value)) &&
      (pattern === undefined || new RegExp(pattern, "u").test(value)) &&
      // Counting code points walks the string: only when a length bound needs it (ids have none).
      (bounds.length === 0 || meets(codePointLength(value)))
    )
      return;
    const length = words();
    throw fail(
      format === "uuid"
        ? "a uuid (8-4-4-4-12 hexadecimal digits)"
        : `a string${length && ` of${length} Unicode code points`}${pattern ? ` matching /${pattern}/` : ""}`,
    );
  }
  if (bounds.length === 0 && type !== "integer") return;
  const whole = type === "integer";
  if (typeof value === "number" && (whole ? Number.isInteger : Number.isFinite)(value) && meets(value))
    return;
  throw fail(`${whole ? "an integer" : "a finite number"}${words()}`);
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

/** A positive count up to `max`, by default the longest delay a timer can honour. */
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
