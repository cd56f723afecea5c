import { StudioApiError, StudioConnectionError, StudioError, StudioTimeoutError } from "../errors.js";
import type { StudioLogger, StudioRequestLog } from "../logger.js";
import { containsSecret, redactSecrets } from "./redact.js";
import { apiErrorFrom } from "./response.js";
import { backoffMs, isRetryableStatus, MAX_RETRY_AFTER_MS } from "./retry.js";
import { linkSignal, sleep, throwIfAborted } from "./signals.js";

// One call = one or more attempts. Each attempt has its own timeout; the caller's signal cancels the
// attempt in flight and the wait between attempts at once, and is rethrown as-is (its reason), as fetch does.

/** What openapi-fetch resolves with (bodies read with `parseAs: "text"`). */
export interface Answer {
  readonly response: Response;
  readonly data?: unknown;
  readonly error?: unknown;
}

export interface Attempt {
  /** Pass to openapi-fetch as `signal`. */
  readonly signal: AbortSignal;
  /** Pass to openapi-fetch as `fetch`: it records that the request got as far as being sent. */
  readonly fetch: (request: Request) => Promise<Response>;
}

export interface CallSettings {
  readonly method: string;
  readonly path: string;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly signal: AbortSignal | undefined;
  readonly fetch: (request: Request) => Promise<Response>;
  /** Strings that must never reach an error or a log line. */
  readonly secrets: readonly string[];
  readonly logger: StudioLogger | undefined;
  /** The redacted form of the Authorization header, for logs. */
  readonly authorization: string | undefined;
}

const TIMED_OUT = Symbol("timed out");

/** Runs `send` until it gets a 2xx answer, retrying what is safe to retry; throws a StudioError otherwise. */
export async function execute(
  settings: CallSettings,
  send: (attempt: Attempt) => Promise<Answer>,
): Promise<Answer> {
  const { method, path, timeoutMs, maxRetries, signal } = settings;
  for (let attempt = 1; ; attempt++) {
    throwIfAborted(signal);
    const started = Date.now();
    const linked = linkSignal(signal, timeoutMs, () => TIMED_OUT);
    let sent = false;
    const fetch = (request: Request) => {
      sent = true;
      return settings.fetch(request);
    };
    let failure: StudioError;
    let status: number | undefined;
    try {
      const answer = await send({ signal: linked.signal, fetch });
      status = answer.response.status;
      if (answer.response.ok) {
        log(settings, { attempt, status, started, outcome: "ok" });
        return answer;
      }
      failure = apiErrorFrom(method, path, answer.response, answer.error, settings.secrets);
    } catch (error) {
      if (signal?.aborted) {
        log(settings, { attempt, status, started, outcome: "aborted" });
        throw signal.reason;
      }
      if (!sent && !linked.timedOut) {
        // Nothing went over the wire: a header that fetch refused, say. Retrying cannot help.
        throw new StudioError(`${method} ${path} could not be sent: ${safeText(error, settings.secrets)}`);
      }
      failure = linked.timedOut
        ? new StudioTimeoutError(`${method} ${path} timed out after ${timeoutMs} ms (attempt ${attempt})`, {
            timeoutMs,
          })
        : new StudioConnectionError(`${method} ${path} failed: ${safeText(error, settings.secrets)}`, {
            method,
            path,
            cause: safeCause(error, settings.secrets),
          });
    } finally {
      linked.dispose();
    }
    const retryInMs = attempt <= maxRetries ? retryDelay(failure, attempt) : undefined;
    log(settings, { attempt, status, started, outcome: outcomeOf(failure), retryInMs });
    if (retryInMs === undefined) throw failure;
    await sleep(retryInMs, signal);
  }
}

/** How long to wait before retrying after `failure`, or undefined when it must not be retried. */
function retryDelay(failure: StudioError, retry: number): number | undefined {
  if (failure instanceof StudioApiError) {
    if (!isRetryableStatus(failure.status)) return undefined;
    if (failure.retryAfterMs !== undefined) {
      return failure.retryAfterMs <= MAX_RETRY_AFTER_MS ? failure.retryAfterMs : undefined;
    }
  }
  return backoffMs(retry);
}

function outcomeOf(failure: StudioError): StudioRequestLog["outcome"] {
  if (failure instanceof StudioApiError) return "http-error";
  if (failure instanceof StudioTimeoutError) return "timeout";
  return "connection-error";
}

function log(
  settings: CallSettings,
  entry: {
    attempt: number;
    status: number | undefined;
    started: number;
    outcome: StudioRequestLog["outcome"];
    retryInMs?: number | undefined;
  },
): void {
  if (!settings.logger) return;
  try {
    settings.logger({
      method: settings.method,
      path: settings.path,
      attempt: entry.attempt,
      status: entry.status,
      durationMs: Date.now() - entry.started,
      authorization: settings.authorization,
      outcome: entry.outcome,
      retryInMs: entry.retryInMs,
    });
  } catch {
    // A logger that throws must not turn a good answer into a failure.
  }
}

/** The fetch error's message and, when there is one, its cause's code and message (undici puts the reason there). */
function safeText(error: unknown, secrets: readonly string[]): string {
  const parts: string[] = [];
  if (error instanceof Error) {
    parts.push(error.message);
    const cause = error.cause;
    if (cause instanceof Error) {
      const code = (cause as { code?: unknown }).code;
      parts.push(`(${typeof code === "string" ? `${code}: ` : ""}${cause.message})`);
    }
  } else {
    parts.push(String(error));
  }
  return redactSecrets(parts.join(" "), secrets);
}

/** The original error, kept for debugging, unless anything in it mentions a secret. */
function safeCause(error: unknown, secrets: readonly string[]): unknown {
  let text = "";
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    text += `${e.message}\n${e.stack ?? ""}\n`;
  }
  if (!(error instanceof Error)) text = String(error);
  return containsSecret(text, secrets) ? undefined : error;
}
