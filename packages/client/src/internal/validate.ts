import { StudioValidationError } from "../errors.js";
import { codePointLength, describeValue } from "./describe.js";

// Input is checked before anything is sent, against the same rules the contract states, so a mistake
// fails here with the field's name instead of as a 4xx from the server (or, for ids, as a different URL).

/** RFC 4122 text form, any version, either case: what JSON Schema's `format: uuid` accepts. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const MAX_FEEDBACK_CODE_POINTS = 2048;
/** setTimeout fires at once for delays above 2^31 - 1 ms, so longer timeouts cannot be honoured. */
export const MAX_TIMER_MS = 2_147_483_647;

export function assertUuid(field: string, value: unknown): asserts value is string {
  if (typeof value !== "string" || !UUID.test(value)) {
    throw new StudioValidationError(
      field,
      "must be a uuid (8-4-4-4-12 hexadecimal digits)",
      describeValue(value),
    );
  }
}

export function assertScore(value: unknown): asserts value is number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > 1) {
    throw new StudioValidationError(
      "score",
      "must be a finite number between 0 and 1 inclusive",
      describeValue(value),
    );
  }
}

export function assertFeedback(value: unknown): asserts value is string | null {
  if (value === null) return;
  if (typeof value !== "string" || codePointLength(value) > MAX_FEEDBACK_CODE_POINTS) {
    throw new StudioValidationError(
      "feedback",
      `must be a string of at most ${MAX_FEEDBACK_CODE_POINTS} Unicode code points, or null`,
      describeValue(value),
    );
  }
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

export function assertTimeout(field: string, value: unknown): asserts value is number | undefined {
  if (value === undefined) return;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0 || value > MAX_TIMER_MS) {
    throw new StudioValidationError(
      field,
      `must be a number of milliseconds above 0 and at most ${MAX_TIMER_MS}`,
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
