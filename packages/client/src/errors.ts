import type { Recommendations } from "@finetune-studio/types";

// Every error the client raises is a StudioError, so one `instanceof` check catches them all, and each
// subclass is a case a program can branch on. No error ever holds the token: request headers are never
// stored, and anything the server sends back is scrubbed of it before it lands here. A message stays short
// whatever a server sent (the full answer stays on the error's fields). Fields are declared, not defined,
// and copied in by the base class: one copy loop instead of one constructor per class.

/** No message is longer than this, in UTF-16 units; the rest is cut with an ellipsis. */
export const MAX_MESSAGE_LENGTH = 2_000;

/** The base of every error raised by this package. */
export class StudioError extends Error {
  /** `fields` become the error's own properties; a `cause` among them is passed to Error instead. */
  constructor(message: string, fields?: object) {
    super(
      message.length > MAX_MESSAGE_LENGTH ? `${message.slice(0, MAX_MESSAGE_LENGTH - 1)}…` : message,
      fields && "cause" in fields ? { cause: fields.cause } : undefined,
    );
    for (const [key, value] of Object.entries(fields ?? {})) {
      if (key !== "cause") (this as Record<string, unknown>)[key] = value;
    }
  }

  /** `JSON.stringify(error)` gives the name, the message and the error's own fields (never the cause). */
  toJSON(): Record<string, unknown> {
    return { name: this.name, message: this.message, ...(this as object) };
  }
}

/** Input refused before any request was sent: `field` names it, `rule` says what it must be. */
export class StudioValidationError extends StudioError {
  declare readonly field: string;
  declare readonly rule: string;
  /** The shape of what was given (its type, length or a short value), never a secret. */
  declare readonly received: string | undefined;

  constructor(field: string, rule: string, received?: string) {
    super(`${field} ${rule}${received === undefined ? "" : ` (got ${received})`}`, { field, rule, received });
  }
}

export interface StudioApiErrorDetails {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  /** The parsed JSON body, or the text when it is not JSON (an HTML page from a proxy, say). */
  readonly body: unknown;
  readonly headers: Readonly<Record<string, string>>;
  readonly requestId: string | undefined;
  /** How long the server asked to wait (`Retry-After` or `retry-after-ms`), when it said. */
  readonly retryAfterMs: number | undefined;
}

/** The server answered with an error status. Subclasses name the cases worth telling apart. */
export class StudioApiError extends StudioError {
  declare readonly method: string;
  declare readonly path: string;
  declare readonly status: number;
  declare readonly body: unknown;
  declare readonly headers: Readonly<Record<string, string>>;
  declare readonly requestId: string | undefined;
  declare readonly retryAfterMs: number | undefined;

  constructor(message: string, details: StudioApiErrorDetails) {
    super(message, details);
  }
}

/** 401 (the token is missing or not valid) or 403 (the token may not access this resource). */
export class StudioAuthError extends StudioApiError {}

/** 404: nothing with this id is visible to the token. */
export class StudioNotFoundError extends StudioApiError {}

/** 429: too many requests; `retryAfterMs` says how long the server asked to wait, when it said. */
export class StudioRateLimitError extends StudioApiError {}

/** 5xx: the server (or a proxy in front of it) failed; retrying later may succeed. */
export class StudioServerError extends StudioApiError {}

/** No answer: the connection was refused, reset or could not be made. `cause` holds the fetch error. */
export class StudioConnectionError extends StudioError {
  declare readonly method: string;
  declare readonly path: string;

  constructor(message: string, details: { method: string; path: string; cause?: unknown }) {
    super(message, details);
  }
}

/** A request, or a wait (`waitForRecommendations`, `waitUntilReady`), took longer than `timeoutMs`. */
export class StudioTimeoutError extends StudioError {
  declare readonly timeoutMs: number;

  constructor(message: string, details: { timeoutMs: number }) {
    super(message, details);
  }
}

/** The service finished computing recommendations with `status: 'failed'`; `.recommendations` is its answer. */
export class StudioRecommendationsFailedError extends StudioError {
  declare readonly recommendations: Recommendations;

  constructor(recommendations: Recommendations) {
    super(`recommendations for snapshot ${recommendations.snapshot_id} failed`, { recommendations });
  }
}

/** What a server said in an error event inside a stream (vLLM: `data: {"error": {...}}`), scrubbed. */
export interface StudioStreamServerError {
  readonly message: string;
  readonly type: string | undefined;
  /** vLLM puts the HTTP status it would have answered here (400, 500, ...). */
  readonly code: number | string | undefined;
  readonly param: string | undefined;
}

/**
 * A stream answered 200 and then failed: the server sent an error event (`serverError` holds it), or sent
 * something that is not a chunk (not JSON, an event too large, JSON nested too deeply).
 */
export class StudioStreamError extends StudioError {
  declare readonly method: string;
  declare readonly path: string;
  declare readonly serverError: StudioStreamServerError | undefined;

  constructor(
    message: string,
    details: { method: string; path: string; serverError?: StudioStreamServerError; cause?: unknown },
  ) {
    super(message, { ...details, serverError: details.serverError });
  }
}

// Names on the prototypes, not as own fields, so they show in `String(error)` but not as stray properties;
// written out because a minifier renames classes.
const names: [{ prototype: Error }, string][] = [
  [StudioError, ""],
  [StudioValidationError, "Validation"],
  [StudioApiError, "Api"],
  [StudioAuthError, "Auth"],
  [StudioNotFoundError, "NotFound"],
  [StudioRateLimitError, "RateLimit"],
  [StudioServerError, "Server"],
  [StudioConnectionError, "Connection"],
  [StudioTimeoutError, "Timeout"],
  [StudioRecommendationsFailedError, "RecommendationsFailed"],
  [StudioStreamError, "Stream"],
];
for (const [type, name] of names) type.prototype.name = `Studio${name}Error`;
