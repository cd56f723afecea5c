import { describeValue } from "@finetune-studio/internal";
import createClient, { type Client } from "openapi-fetch";
import {
  StudioApiError,
  StudioConnectionError,
  StudioError,
  StudioTimeoutError,
  StudioValidationError,
} from "../errors.js";
import type { StudioLogger, StudioRequestLog } from "../logger.js";
import type { ClientOptions, RequestOptions } from "../options.js";
import { baseUrlString, parseBaseUrl } from "./base-url.js";
import { containsSecret, redactText } from "./redact.js";
import { apiErrorFrom, BodyTooLargeError, readBody } from "./response.js";
import { backoffMs, isRetryableStatus, MAX_RETRY_AFTER_MS } from "./retry.js";
import { LinkedSignal, sleep } from "./signals.js";
import {
  assertFunction,
  assertPositive,
  assertRetries,
  assertSignal,
  checkObject,
  isPlainObject,
} from "./validate.js";

// The one request core both clients stand on. openapi-fetch builds each request (typed path, params, body)
// and parses each 2xx body into its typed `data`; the core is the `fetch` it calls. There, in one place:
// per-attempt timeouts, the caller's abort, retries with backoff and Retry-After, redirect refusal, bodies
// read with a byte limit, logging, and the mapping of every failure to a StudioError with secrets redacted.

export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** What a client holds once its options are checked. */
export interface Core<Paths extends {}> {
  /** The openapi-fetch client for callers: requests through it alone go out with no retries or timeouts. */
  readonly raw: Client<Paths>;
  /** The openapi-fetch client the operations call with `call.fetch`: it hands the core an `Outgoing`. */
  readonly api: Client<Paths>;
  readonly baseUrl: string;
  readonly timeoutMs: number;
  /** Starts a call: pass `call.fetch` to the openapi-fetch method, then its promise to `result`. */
  call(method: string, path: string, options: RequestOptions | undefined, stream?: boolean): Call;
}

interface Settings {
  readonly fetch: (url: string, init: RequestInit) => Promise<Response>;
  readonly secrets: readonly string[];
  readonly logger: StudioLogger | undefined;
  readonly authorization: string | undefined;
  readonly maxResponseBytes: number;
}

/** Checks the options both clients share and builds the openapi-fetch client on the core. */
export function createCore<Paths extends {}>(
  options: ClientOptions,
  client: {
    /** The credential: redacted from everything kept or printed, and no plain http to a remote host. */
    secret: string | undefined;
    /** The client's own headers, sent on every request after the caller's. */
    headers: Record<string, string>;
    defaultTimeoutMs: number;
    defaultMaxRetries: number;
  },
): Core<Paths> {
  assertRetries("maxRetries", options.maxRetries);
  assertPositive("timeoutMs", options.timeoutMs);
  assertPositive("maxResponseBytes", options.maxResponseBytes, Number.MAX_SAFE_INTEGER, "bytes");
  assertFunction("fetch", options.fetch);
  assertFunction("logger", options.logger);
  if (options.headers !== undefined && !isPlainObject(options.headers)) {
    throw new StudioValidationError(
      "headers",
      "must be an object of header names to values",
      describeValue(options.headers),
    );
  }
  const url = parseBaseUrl(options.baseUrl, {
    field: "baseUrl",
    sendsSecret: client.secret !== undefined,
    allowInsecureHttp: options.allowInsecureHttp === true,
  });
  const baseUrl = baseUrlString(url);
  const given = options.fetch;
  const settings: Settings = {
    // The global fetch is looked up at call time, never detached from globalThis (browsers care).
    fetch: given ? (url, init) => given(new Request(url, init)) : (url, init) => globalThis.fetch(url, init),
    secrets: client.secret === undefined ? [] : [client.secret],
    logger: options.logger,
    authorization: client.secret === undefined ? undefined : "Bearer [redacted]",
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
  };
  const timeoutMs = options.timeoutMs ?? client.defaultTimeoutMs;
  const maxRetries = options.maxRetries ?? client.defaultMaxRetries;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    // The client's own credential is the one sent.
    if (name.toLowerCase() !== "authorization") headers[name] = value;
  }
  Object.assign(headers, client.headers);
  // The API has no redirects: a 3xx is an error, never followed (to another origin least of all).
  const raw = createClient<Paths>({ baseUrl, fetch: given ?? globalFetch, headers, redirect: "manual" });
  const api = createClient<Paths>({ baseUrl, headers, Request: Outgoing as unknown as typeof Request });
  return {
    raw,
    api,
    baseUrl,
    timeoutMs,
    call(method, path, callOptions, stream = false) {
      if (callOptions !== undefined) checkRequestOptions(callOptions);
      return new Call(
        settings,
        method,
        path,
        callOptions?.timeoutMs ?? timeoutMs,
        callOptions?.maxRetries ?? maxRetries,
        callOptions?.signal,
        stream,
      );
    },
  };
}

const globalFetch = (request: Request) => globalThis.fetch(request);

/**
 * What openapi-fetch builds for the core instead of a Request: the request's parts. fetch builds the one
 * Request an attempt needs from them, and the body stays a string that every retry can send again.
 */
class Outgoing {
  readonly method: string;
  constructor(
    readonly url: string,
    readonly init: RequestInit,
  ) {
    this.method = init.method ?? "GET";
  }
}

export function checkRequestOptions(options: unknown, field = "options"): RequestOptions {
  const checked = checkObject(field, options);
  assertSignal(`${field}.signal`, checked.signal);
  assertPositive(`${field}.timeoutMs`, checked.timeoutMs);
  assertRetries(`${field}.maxRetries`, checked.maxRetries);
  return checked;
}

/** One operation: one or more attempts, all through `fetch`. */
export class Call {
  /** Pass to `api`'s methods as `fetch`. */
  readonly fetch: (request: Request) => Promise<Response>;
  /** The request got as far as the core (openapi-fetch built it). */
  reached = false;
  /** The 2xx answer handed to openapi-fetch: a failure after this is in reading or parsing its body. */
  answered: Response | undefined;
  /** The 2xx answer's body was empty (or absent). */
  emptyBody = false;
  /** The attempt whose answer is being read: its timeout still runs until `result` ends it. */
  attempt: LinkedSignal | undefined;

  constructor(
    readonly settings: Settings,
    readonly method: string,
    readonly path: string,
    readonly timeoutMs: number,
    readonly maxRetries: number,
    readonly signal: AbortSignal | undefined,
    readonly stream: boolean,
  ) {
    this.fetch = (request) => send(this, request as unknown as Outgoing);
  }
}

/**
 * The typed `data` of an openapi-fetch call made with `call.fetch`. Non-2xx answers never get here (the core
 * throws their StudioError); a body openapi-fetch cannot parse, or a request it cannot build, is a StudioError.
 */
export async function result<T>(call: Call, pending: Promise<{ data?: T }>): Promise<T | undefined> {
  try {
    return (await pending).data;
  } catch (error) {
    const where = `${call.method} ${call.path}`;
    if (call.attempt?.timedOut) {
      throw new StudioTimeoutError(`${where} timed out after ${call.timeoutMs} ms reading the answer`, {
        timeoutMs: call.timeoutMs,
      });
    }
    if (call.signal?.aborted) throw call.signal.reason;
    if (error instanceof StudioError) throw error;
    if (call.answered) {
      if (!(error instanceof SyntaxError)) throw networkFailure(call, error);
      const type = call.answered.headers.get("content-type") ?? "no content type";
      throw new StudioError(
        `${where} answered ${call.answered.status} with a body that is not valid JSON (${type})`,
      );
    }
    if (!call.reached) {
      // Nothing went over the wire: a header value that fetch refused, say. Retrying cannot help.
      throw new StudioError(`${where} could not be sent: ${safeText(error, call.settings.secrets)}`);
    }
    throw error;
  } finally {
    if (!call.stream) call.attempt?.dispose();
  }
}

/**
 * For a streamed answer: resolves with the unread 2xx Response of an openapi-fetch call made with
 * `parseAs: "stream"` and the `fetch` of a call started with `stream: true`.
 */
export async function openStream(call: Call, pending: Promise<{ response: Response }>): Promise<Response> {
  await result(call, pending as Promise<{ data?: unknown }>);
  return (await pending).response;
}

async function send(call: Call, request: Outgoing): Promise<Response> {
  call.reached = true;
  const { settings, signal, method, path } = call;
  const { url, init } = request;
  for (let attempt = 1; ; attempt++) {
    if (signal?.aborted) throw signal.reason;
    const started = Date.now();
    const linked = new LinkedSignal(signal, call.timeoutMs);
    let keep = false;
    let failure: StudioError;
    let status: number | undefined;
    try {
      // The API has no redirects: a 3xx is an error, never followed (to another origin least of all).
      const response = await settings.fetch(url, {
        method: request.method,
        headers: init.headers,
        body: init.body,
        redirect: "manual",
        signal: linked.signal,
      });
      status = response.status;
      if (response.ok && !response.redirected) {
        log(call, attempt, status, started, "ok", undefined);
        // The body is read by the caller (openapi-fetch, or a stream) within this attempt's timeout, or,
        // for a stream, until the caller's signal aborts: `result` ends the attempt once it is read.
        if (call.stream) linked.stopTimer();
        else if (!knownSize(response, settings.maxResponseBytes)) countBytesRead(call, response);
        keep = true;
        call.attempt = linked;
        call.answered = response;
        return response;
      }
      const bytes = await readBody(response, settings.maxResponseBytes, "").catch(() => undefined);
      failure = apiErrorFrom(method, path, response, bytes, settings.secrets);
    } catch (error) {
      if (signal?.aborted) {
        log(call, attempt, status, started, "aborted", undefined);
        throw signal.reason;
      }
      if (error instanceof BodyTooLargeError) throw error;
      failure = linked.timedOut
        ? new StudioTimeoutError(
            `${method} ${path} timed out after ${call.timeoutMs} ms (attempt ${attempt})`,
            {
              timeoutMs: call.timeoutMs,
            },
          )
        : networkFailure(call, error);
    } finally {
      if (!keep) linked.dispose();
    }
    const retryInMs = attempt <= call.maxRetries ? retryDelay(failure, attempt) : undefined;
    log(call, attempt, status, started, outcomeOf(failure), retryInMs);
    if (retryInMs === undefined) throw failure;
    await sleep(retryInMs, signal);
  }
}

/**
 * Whether the body is exactly as long as `content-length` says, within the limit: HTTP/1.1 framing then
 * bounds it, so it can be handed on unread. A compressed body may inflate to anything: it is counted.
 */
function knownSize(response: Response, limit: number): boolean {
  const length = response.headers.get("content-length");
  return length !== null && Number(length) <= limit && !response.headers.has("content-encoding");
}

/**
 * openapi-fetch reads a body with `text()` or `json()`: on this answer they read it here instead, counting
 * its bytes, so a body of unknown length is bounded without copying it into a new Response.
 */
function countBytesRead(call: Call, response: Response): void {
  const text = async () => {
    const bytes = await readBody(response, call.settings.maxResponseBytes, `${call.method} ${call.path}`);
    if (!bytes?.byteLength) call.emptyBody = true;
    return bytes ? decoder.decode(bytes) : "";
  };
  Object.defineProperties(response, {
    text: { value: text },
    json: { value: async () => JSON.parse(await text()) },
  });
}

const decoder = new TextDecoder();

/** A fetch that threw: a connection error, unless it failed in this process (then it is not retried). */
function networkFailure(call: Call, error: unknown): StudioError {
  const text = safeText(error, call.settings.secrets);
  if (error instanceof RangeError || error instanceof ReferenceError || error instanceof SyntaxError) {
    return new StudioError(`${call.method} ${call.path} failed in this process: ${text}`);
  }
  return new StudioConnectionError(`${call.method} ${call.path} failed: ${text}`, {
    method: call.method,
    path: call.path,
    cause: safeCause(error, call.settings.secrets),
  });
}

/** How long to wait before retrying after `failure`, or undefined when it must not be retried. */
function retryDelay(failure: StudioError, retry: number): number | undefined {
  if (failure instanceof StudioApiError) {
    if (!isRetryableStatus(failure.status)) return undefined;
    if (failure.retryAfterMs !== undefined) {
      return failure.retryAfterMs <= MAX_RETRY_AFTER_MS ? failure.retryAfterMs : undefined;
    }
  } else if (!(failure instanceof StudioTimeoutError || failure instanceof StudioConnectionError)) {
    return undefined;
  }
  return backoffMs(retry);
}

function outcomeOf(failure: StudioError): StudioRequestLog["outcome"] {
  if (failure instanceof StudioApiError) return "http-error";
  if (failure instanceof StudioTimeoutError) return "timeout";
  return "connection-error";
}

function log(
  call: Call,
  attempt: number,
  status: number | undefined,
  started: number,
  outcome: StudioRequestLog["outcome"],
  retryInMs: number | undefined,
): void {
  const { logger, authorization } = call.settings;
  if (!logger) return;
  try {
    logger({
      method: call.method,
      path: call.path,
      attempt,
      status,
      durationMs: Date.now() - started,
      authorization,
      outcome,
      retryInMs,
    });
  } catch {
    // A logger that throws must not turn a good answer into a failure.
  }
}

/** The error's message and, when there is one, its cause's code and message (undici puts the reason there). */
function safeText(error: unknown, secrets: readonly string[]): string {
  let text = error instanceof Error ? error.message : printable(error);
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    text += ` (${typeof code === "string" ? `${code}: ` : ""}${cause.message})`;
  }
  return redactText(text, secrets);
}

/** `String(value)`, which throws for some objects (no prototype, a throwing toString): never here. */
function printable(value: unknown): string {
  try {
    return String(value);
  } catch {
    return `a ${typeof value} that cannot be printed`;
  }
}

/** The original error, kept for debugging, unless anything in it mentions a secret. */
function safeCause(error: unknown, secrets: readonly string[]): unknown {
  let text = "";
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    text += `${e.message}\n${e.stack ?? ""}\n`;
  }
  if (!(error instanceof Error)) text = printable(error);
  return containsSecret(text, secrets) ? undefined : error;
}
