import type { Recommendations } from "@finetune-studio/types";

// Every error is a StudioError, so one `instanceof` catches them all; each subclass is a case to branch on.
// None holds the token: request headers are never stored, and what a server sends is scrubbed first.
// Fields are declared, not defined: the base class copies them in, so most subclasses need no constructor.

/** No message is longer than this, in UTF-16 units; the rest is cut with an ellipsis. */
export const MAX_MESSAGE_LENGTH = 2_000;

/** The base of every error raised by this package. */
export class StudioError extends Error {
  /** `fields` become the error's own properties; a `cause` among them goes to Error, which keeps it hidden. */
  constructor(message: string, fields?: object) {
    super(
      message.length > MAX_MESSAGE_LENGTH ? `${message.slice(0, MAX_MESSAGE_LENGTH - 1)}…` : message,
      fields && "cause" in fields ? { cause: fields.cause } : undefined,
    );
    // Error made `cause` a non-enumerable own property; assigning it again keeps it so, and out of toJSON.
    Object.assign(this, fields);
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

/** What a StudioApiError holds about the failed request and its answer, secrets scrubbed. */
export interface StudioApiErrorDetails {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  /** The parsed JSON body, or the text when it is not JSON (an HTML page from a proxy, say). */
  readonly body: unknown;
  /** The server's own message, when its body has one (`{ message }`, `{ error: { message } }`, `{ error }`, `{ detail }`). */
  readonly serverMessage?: string | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly requestId: string | undefined;
  /** How long the server asked to wait (`Retry-After` or `retry-after-ms`), when it said. */
  readonly retryAfterMs: number | undefined;
}

/** The server answered with an error status. Subclasses name the cases worth telling apart. */
export class StudioApiError extends StudioError implements StudioApiErrorDetails {
  declare readonly method: string;
  declare readonly path: string;
  declare readonly status: number;
  declare readonly body: unknown;
  declare readonly serverMessage: string | undefined;
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

/** A stream answered 200, then failed: an error event (in `serverError`) or something that is not a chunk. */
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

// Names on the prototypes, so they show in `String(error)` but not as own fields; written out because a
// minifier renames classes.
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
