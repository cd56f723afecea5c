import type { Recommendations } from "@finetune-studio/types";

// Every error the client raises is a StudioError, so one `instanceof` check catches them all, and each
// subclass is a case a program can branch on. No error ever holds the token: request headers are never
// stored, and anything the server sends back is scrubbed of it before it lands here. A message stays short
// whatever a server sent (the full answer stays on the error's fields).

/** No message is longer than this, in UTF-16 units; the rest is cut with an ellipsis. */
export const MAX_MESSAGE_LENGTH = 2_000;

/** The base of every error raised by this package. */
export class StudioError extends Error {
  static {
    // On the prototype, not as an own field, so it shows in `String(error)` but not as a stray property.
    StudioError.prototype.name = "StudioError";
  }

  constructor(message: string, options?: { cause?: unknown }) {
    super(
      message.length > MAX_MESSAGE_LENGTH ? `${message.slice(0, MAX_MESSAGE_LENGTH - 1)}…` : message,
      options,
    );
  }

  /** `JSON.stringify(error)` gives the name, the message and the error's own fields (never the cause). */
  toJSON(): Record<string, unknown> {
    return { name: this.name, message: this.message, ...Object.fromEntries(Object.entries(this)) };
  }
}

/** Input refused before any request was sent: `field` names it, `rule` says what it must be. */
export class StudioValidationError extends StudioError {
  static {
    StudioValidationError.prototype.name = "StudioValidationError";
  }
  readonly field: string;
  readonly rule: string;
  /** The shape of what was given (its type, length or a short value), never a secret. */
  readonly received: string | undefined;

  constructor(field: string, rule: string, received?: string) {
    super(`${field} ${rule}${received === undefined ? "" : ` (got ${received})`}`);
    this.field = field;
    this.rule = rule;
    this.received = received;
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
  static {
    StudioApiError.prototype.name = "StudioApiError";
  }
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly body: unknown;
  readonly headers: Readonly<Record<string, string>>;
  readonly requestId: string | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(message: string, details: StudioApiErrorDetails) {
    super(message);
    this.method = details.method;
    this.path = details.path;
    this.status = details.status;
    this.body = details.body;
    this.headers = details.headers;
    this.requestId = details.requestId;
    this.retryAfterMs = details.retryAfterMs;
  }
}

/** 401 (the token is missing or not valid) or 403 (the token may not access this resource). */
export class StudioAuthError extends StudioApiError {
  static {
    StudioAuthError.prototype.name = "StudioAuthError";
  }
}

/** 404: nothing with this id is visible to the token. */
export class StudioNotFoundError extends StudioApiError {
  static {
    StudioNotFoundError.prototype.name = "StudioNotFoundError";
  }
}

/** 429: too many requests; `retryAfterMs` says how long the server asked to wait, when it said. */
export class StudioRateLimitError extends StudioApiError {
  static {
    StudioRateLimitError.prototype.name = "StudioRateLimitError";
  }
}

/** 5xx: the server (or a proxy in front of it) failed; retrying later may succeed. */
export class StudioServerError extends StudioApiError {
  static {
    StudioServerError.prototype.name = "StudioServerError";
  }
}

/** No answer: the connection was refused, reset or could not be made. `cause` holds the fetch error. */
export class StudioConnectionError extends StudioError {
  static {
    StudioConnectionError.prototype.name = "StudioConnectionError";
  }
  readonly method: string;
  readonly path: string;

  constructor(message: string, details: { method: string; path: string; cause?: unknown }) {
    super(message, { cause: details.cause });
    this.method = details.method;
    this.path = details.path;
  }
}

/** A request, or a wait (`waitForRecommendations`, `waitUntilReady`), took longer than `timeoutMs`. */
export class StudioTimeoutError extends StudioError {
  static {
    StudioTimeoutError.prototype.name = "StudioTimeoutError";
  }
  readonly timeoutMs: number;

  constructor(message: string, details: { timeoutMs: number }) {
    super(message);
    this.timeoutMs = details.timeoutMs;
  }
}

/** The service finished computing recommendations with `status: 'failed'`; `.recommendations` is its answer. */
export class StudioRecommendationsFailedError extends StudioError {
  static {
    StudioRecommendationsFailedError.prototype.name = "StudioRecommendationsFailedError";
  }
  readonly recommendations: Recommendations;

  constructor(recommendations: Recommendations) {
    super(`recommendations for snapshot ${recommendations.snapshot_id} failed`);
    this.recommendations = recommendations;
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
  static {
    StudioStreamError.prototype.name = "StudioStreamError";
  }
  readonly method: string;
  readonly path: string;
  readonly serverError: StudioStreamServerError | undefined;

  constructor(
    message: string,
    details: { method: string; path: string; serverError?: StudioStreamServerError; cause?: unknown },
  ) {
    super(message, { cause: details.cause });
    this.method = details.method;
    this.path = details.path;
    this.serverError = details.serverError;
  }
}
