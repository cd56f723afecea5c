import { describeValue } from "@finetune-studio/internal";
import { StudioApiError, StudioConnectionError, StudioError, StudioTimeoutError } from "../errors.js";
import type { StudioRequestLog } from "../logger.js";
import type { ClientOptions } from "../options.js";
import { containsSecret, redactText } from "./redact.js";
import { apiErrorFrom, isRedirect, readBody } from "./response.js";
import { backoffMs, isRetryableStatus, MAX_RETRY_AFTER_MS } from "./retry.js";
import { LinkedSignal, sleep } from "./signals.js";

// One call over the network: attempts with a timeout each (until the whole body is read), retries with
// backoff and Retry-After, redirects refused, every body read at most maxResponseBytes, a log entry per
// attempt, and each failure a StudioError with the secrets scrubbed. The operations hand it the request's
// parts; the raw client's openapi-fetch hands it a Request, through `fetchRequest`.

/** A request as its parts: fetch builds the one Request an attempt needs from them, the body sent as is. */
export interface Outgoing {
  readonly method: string;
  readonly url: string;
  /** Names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** Read once: every attempt sends it again. */
  readonly body: string | ArrayBuffer | null;
}

/** What a client fixes once. */
export interface Transport {
  /** Sends one attempt, with that attempt's signal. */
  readonly send: (request: Outgoing, signal: AbortSignal) => Promise<Response>;
  readonly secrets: readonly string[];
  readonly logger: ClientOptions["logger"];
  readonly maxResponseBytes: number;
}

/** What one call may take. */
export interface Budget {
  readonly signal: AbortSignal | undefined;
  readonly timeoutMs: number;
  readonly maxRetries: number;
}

/**
 * How a 2xx answer is handed back. keep: its body is read here, within the attempt, for `json()` and
 * `text()` (openapi-fetch must not read it: `parseAs: "stream"`). stream: unread, for a stream that keeps
 * its own time. copy: read here and handed on in a new Response, error answers too, for the raw client.
 */
export type Handover = "keep" | "stream" | "copy";

/** A 2xx answer's flaw against the contract: the rule it breaks and, when given, the part that breaks it. */
export type Broken = [rule: string, got?: unknown];

export class Exchange {
  #request: Outgoing | undefined;
  /** The 2xx answer handed on, for messages about its body. */
  #answer: Response | undefined;
  /** The kept 2xx body. */
  #body = "";

  constructor(
    readonly transport: Transport,
    readonly budget: Budget,
    readonly handover: Handover,
  ) {}

  /** The `fetch` for openapi-fetch (the raw client): every attempt of the Request it built. */
  async fetchRequest(request: Request): Promise<Response> {
    // The body is read once, and each attempt sends it as is.
    const { method, url } = request;
    const headers = Object.fromEntries(request.headers);
    return this.send({ method, url, headers, body: request.body && (await request.arrayBuffer()) });
  }

  /** Every attempt of `request`, until one answers 2xx or the failure is final. */
  async send(request: Outgoing): Promise<Response> {
    const { transport, budget, handover } = this;
    this.#request = request;
    const { signal } = budget;
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw signal.reason;
      const started = Date.now();
      const linked = new LinkedSignal(signal, budget.timeoutMs);
      const log = (outcome: StudioRequestLog["outcome"], status?: number, retryInMs?: number) => {
        if (transport.logger)
          this.#log({ attempt, status, durationMs: Date.now() - started, outcome, retryInMs });
      };
      let failure: StudioError;
      let status: number | undefined;
      try {
        let response = await transport.send(request, linked.signal);
        status = response.status;
        if (response.ok && !response.redirected) {
          // A stream's body outlives its attempt's timer, but not the caller's signal.
          if (handover === "stream") linked.stopTimer();
          else {
            try {
              response = await this.#take(response);
            } finally {
              linked.dispose();
            }
          }
          this.#answer = response;
          log("ok", status);
          return response;
        }
        const read = await readBody(response, transport.maxResponseBytes).catch(() => undefined);
        linked.dispose();
        failure = apiErrorFrom(request.method, this.#path, response, read, transport.secrets);
        // The raw client hands its last error answer on, as openapi-fetch's `error`; never a redirect's.
        if (handover === "copy" && !isRedirect(response) && this.#retries(failure, attempt) === undefined) {
          log("http-error", status);
          return new Response(read || null, response);
        }
      } catch (error) {
        linked.dispose();
        if (signal?.aborted) {
          log("aborted", status);
          throw signal.reason;
        }
        failure = this.#thrown(error, linked.timedOut, attempt);
      }
      const retryInMs = this.#retries(failure, attempt);
      log(outcomeOf(failure), status, retryInMs);
      if (retryInMs === undefined) throw failure;
      await sleep(retryInMs, signal);
    }
  }

  /** What an attempt that threw (`error`) fails with. */
  #thrown(error: unknown, timedOut: boolean, attempt: number): StudioError {
    if (error instanceof StudioError) return error;
    if (!timedOut) return this.#networkFailure(error);
    const { timeoutMs } = this.budget;
    return new StudioTimeoutError(`${this.#where} timed out after ${timeoutMs} ms (attempt ${attempt})`, {
      timeoutMs,
    });
  }

  /** `METHOD /path` of the request, for messages. */
  get #where(): string {
    return this.#request ? `${this.#request.method} ${this.#path}` : "the request";
  }

  /** The request's path, without its query: what names the call in messages and logs. */
  get #path(): string {
    return this.#request?.url.replace(/^[^/]*\/\/[^/]*|[?#].*$/g, "") ?? "";
  }

  /** The kept body as JSON (undefined when empty); a StudioError when it is not JSON. */
  json(): unknown {
    const text = this.text();
    try {
      return text === "" ? undefined : JSON.parse(text);
    } catch {
      const type = this.#answer?.headers.get("content-type") ?? "no content type";
      throw new StudioError(
        `${this.#where} answered ${this.#answer?.status} with a body that is not valid JSON (${type})`,
      );
    }
  }

  /** The kept body as text. */
  text(): string {
    return this.#body;
  }

  /** The error for a 2xx answer that breaks the contract. */
  broken([rule, ...got]: Broken): StudioError {
    const answered = `${this.#where} answered ${this.#answer?.status} with`;
    if (!this.#body) return new StudioError(`${answered} an empty body: ${rule}`);
    const given = got.length > 0 ? ` (got ${describeValue(got[0])})` : "";
    return new StudioError(`${answered} a body that breaks the contract: ${rule}${given}`);
  }

  /** What a request that could not be built (a body JSON cannot write, say) becomes: nothing was sent. */
  unsent(error: unknown): StudioError {
    return new StudioError(`${this.#where} could not be sent: ${this.#safeText(error)}`);
  }

  /** The 2xx answer with its body read, kept here or copied into the Response handed on. */
  async #take(response: Response): Promise<Response> {
    const limit = this.transport.maxResponseBytes;
    const body = await readBody(response, limit);
    if (body === undefined) {
      // Not retried: a larger answer is not a network fault.
      throw new StudioError(
        `${this.#where} answered ${response.status} with a body over maxResponseBytes (${limit} bytes); reading stopped there`,
      );
    }
    // Handed on as read: no body stays no body (a 204 must not get one).
    if (this.handover === "copy") return new Response(body || null, response);
    this.#body = body;
    return response;
  }

  /** How long to wait before retrying after `failure`, or undefined when it must not be retried. */
  #retries(failure: StudioError, attempt: number): number | undefined {
    if (attempt > this.budget.maxRetries) return undefined;
    if (failure instanceof StudioApiError) {
      if (!isRetryableStatus(failure.status)) return undefined;
      const asked = failure.retryAfterMs;
      if (asked !== undefined) return asked <= MAX_RETRY_AFTER_MS ? asked : undefined;
    } else if (!(failure instanceof StudioTimeoutError || failure instanceof StudioConnectionError)) {
      return undefined;
    }
    return backoffMs(attempt);
  }

  /** A fetch that threw: a connection error, unless it failed in this process (then it is not retried). */
  #networkFailure(error: unknown): StudioError {
    const where = this.#where;
    const text = this.#safeText(error);
    if (error instanceof RangeError || error instanceof ReferenceError || error instanceof SyntaxError) {
      return new StudioError(`${where} failed in this process: ${text}`);
    }
    // The original error is kept for debugging, unless anything in it mentions a secret.
    let trace = printable(error);
    for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
      trace += `${e.message}\n${e.stack ?? ""}\n`;
    }
    const cause = containsSecret(trace, this.transport.secrets) ? undefined : error;
    return new StudioConnectionError(`${where} failed: ${text}`, {
      method: this.#request?.method ?? "",
      path: this.#path,
      cause,
    });
  }

  /** The error's message and, when there is one, its cause's code and message (undici puts the reason there). */
  #safeText(error: unknown): string {
    let text = error instanceof Error ? error.message : printable(error);
    const cause = error instanceof Error ? error.cause : undefined;
    if (cause instanceof Error) {
      const code = (cause as { code?: unknown }).code;
      text += ` (${typeof code === "string" ? `${code}: ` : ""}${cause.message})`;
    }
    return redactText(text, this.transport.secrets);
  }

  #log(entry: Omit<StudioRequestLog, "method" | "path" | "authorization">): void {
    try {
      this.transport.logger?.({
        method: this.#request?.method ?? "",
        path: this.#path,
        ...entry,
        authorization: this.#request?.headers.authorization ? "Bearer [redacted]" : undefined,
      });
    } catch {
      // A logger that throws must not turn a good answer into a failure.
    }
  }
}

function outcomeOf(failure: StudioError): StudioRequestLog["outcome"] {
  if (failure instanceof StudioApiError) return "http-error";
  return failure instanceof StudioTimeoutError ? "timeout" : "connection-error";
}

/** `String(value)`, which throws for some objects (no prototype, a throwing toString): never here. */
function printable(value: unknown): string {
  try {
    return String(value);
  } catch {
    return `a ${typeof value} that cannot be printed`;
  }
}
