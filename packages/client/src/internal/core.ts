import createClient, { type Client } from "openapi-fetch";
import { StudioApiError, StudioConnectionError, StudioError, StudioTimeoutError } from "../errors.js";
import type { StudioRequestLog } from "../logger.js";
import type { ClientOptions, RequestOptions } from "../options.js";
import { baseUrlString, parseBaseUrl } from "./base-url.js";
import { containsSecret, redactText } from "./redact.js";
import { apiErrorFrom, decodeText, readBody } from "./response.js";
import { backoffMs, isRetryableStatus, MAX_RETRY_AFTER_MS } from "./retry.js";
import { LinkedSignal, sleep } from "./signals.js";
import {
  assertFunction,
  assertPositive,
  assertRetries,
  assertSignal,
  checkObject,
  isPlainObject,
  refuse,
} from "./validate.js";

// The one request core both clients stand on. openapi-fetch builds each request (typed path, params, body)
// and parses each 2xx body into its typed `data`; the core is the `fetch` it calls. There, in one place:
// per-attempt timeouts, the caller's abort, retries with backoff and Retry-After, redirect refusal, bodies
// read with a byte limit, logging, and the mapping of every failure to a StudioError with secrets redacted.

export interface Core<Paths extends {}> {
  /** The openapi-fetch client for callers: requests through it go out with no retries or timeouts. */
  readonly raw: Client<Paths>;
  /** The openapi-fetch client the operations call, with a Call's `fetch`. */
  readonly api: Client<Paths>;
  readonly baseUrl: string;
  readonly timeoutMs: number;
  /** Starts an operation: pass `call.fetch` to an `api` method, then its promise to `result`. */
  call(method: string, path: string, options: RequestOptions | undefined, stream?: boolean): Call;
}

interface Settings {
  readonly fetch: (url: string, init: RequestInit) => Promise<Response>;
  readonly secrets: readonly string[];
  readonly logger: ClientOptions["logger"];
  readonly maxResponseBytes: number;
}

/** Checks the options both clients share and builds the openapi-fetch clients on the core. */
export function createCore<Paths extends {}>(
  options: ClientOptions,
  client: {
    secret: string | undefined;
    headers: Record<string, string>;
    timeoutMs: number;
    maxRetries: number;
  },
): Core<Paths> {
  assertRetries("maxRetries", options.maxRetries);
  assertPositive("timeoutMs", options.timeoutMs);
  assertPositive("maxResponseBytes", options.maxResponseBytes, Number.MAX_SAFE_INTEGER, "bytes");
  assertFunction("fetch", options.fetch);
  assertFunction("logger", options.logger);
  if (options.headers !== undefined && !isPlainObject(options.headers)) {
    throw refuse("headers", "must be an object of header names to values", options.headers);
  }
  const { secret } = client;
  const url = parseBaseUrl(options.baseUrl, {
    field: "baseUrl",
    sendsSecret: secret !== undefined,
    allowInsecureHttp: options.allowInsecureHttp === true,
  });
  const baseUrl = baseUrlString(url);
  const given = options.fetch;
  const settings: Settings = {
    // The global fetch is looked up at call time, never detached from globalThis (browsers care).
    fetch: given ? (url, init) => given(new Request(url, init)) : (url, init) => globalThis.fetch(url, init),
    secrets: secret === undefined ? [] : [secret],
    logger: options.logger,
    maxResponseBytes: options.maxResponseBytes ?? 64 * 1024 * 1024,
  };
  const timeoutMs = options.timeoutMs ?? client.timeoutMs;
  const maxRetries = options.maxRetries ?? client.maxRetries;
  // The client's own credential is the one sent.
  const headers = Object.fromEntries(
    Object.entries(options.headers ?? {}).filter(([name]) => name.toLowerCase() !== "authorization"),
  );
  Object.assign(headers, client.headers);
  return {
    // The API has no redirects: a 3xx is an error, never followed (to another origin least of all).
    raw: createClient<Paths>({
      baseUrl,
      headers,
      redirect: "manual",
      fetch: given ?? ((request) => globalThis.fetch(request)),
    }),
    api: createClient<Paths>({ baseUrl, headers, Request: Outgoing as unknown as typeof Request }),
    baseUrl,
    timeoutMs,
    call(method, path, callOptions, stream = false) {
      const checked = callOptions === undefined ? {} : checkObject("options", callOptions);
      assertSignal("options.signal", checked.signal);
      assertPositive("options.timeoutMs", checked.timeoutMs);
      assertRetries("options.maxRetries", checked.maxRetries);
      return new Call(
        settings,
        method,
        path,
        checked.timeoutMs ?? timeoutMs,
        checked.maxRetries ?? maxRetries,
        checked.signal,
        stream,
      );
    },
  };
}

/**
 * What openapi-fetch builds for the core in place of a Request: its parts. fetch builds the one Request an
 * attempt needs, and the body stays a string every retry can send again.
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

/** One operation: one or more attempts, all through `fetch`. */
export class Call {
  /** Pass to an `api` method as `fetch`. */
  readonly fetch: (request: Request) => Promise<Response>;
  /** The request reached the core: openapi-fetch built it. */
  reached = false;
  /** The 2xx answer handed to openapi-fetch: a failure after this is in reading or parsing its body. */
  answered: Response | undefined;
  /** That answer's body was empty. */
  emptyBody = false;
  /** The attempt whose answer is being read: its timeout runs until `result` ends it. */
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

/** The typed `data` of an `api` call made with `call.fetch`; any failure is a StudioError (or the abort reason). */
export async function result<T>(call: Call, pending: Promise<{ data?: T }>): Promise<T | undefined> {
  try {
    return (await pending).data;
  } catch (error) {
    throw failureAfterAnswer(call, error);
  } finally {
    if (!call.stream) call.attempt?.dispose();
  }
}

/** The unread 2xx Response of a `parseAs: "stream"` call made with the `fetch` of a streaming Call. */
export async function openStream(call: Call, pending: Promise<{ response: Response }>): Promise<Response> {
  try {
    return (await pending).response;
  } catch (error) {
    throw failureAfterAnswer(call, error);
  }
}

/** What failed outside the attempt loop: building the request, or reading and parsing the answer's body. */
function failureAfterAnswer(call: Call, error: unknown): unknown {
  const where = `${call.method} ${call.path}`;
  if (call.attempt?.timedOut) {
    return new StudioTimeoutError(`${where} timed out after ${call.timeoutMs} ms reading the answer`, {
      timeoutMs: call.timeoutMs,
    });
  }
  if (call.signal?.aborted) return call.signal.reason;
  if (error instanceof StudioError) return error;
  if (!call.reached) {
    // Nothing went over the wire: a header value openapi-fetch refused, say. Retrying cannot help.
    return new StudioError(`${where} could not be sent: ${safeText(error, call.settings.secrets)}`);
  }
  if (call.answered && error instanceof SyntaxError) {
    const type = call.answered.headers.get("content-type") ?? "no content type";
    return new StudioError(
      `${where} answered ${call.answered.status} with a body that is not valid JSON (${type})`,
    );
  }
  return networkFailure(call, error);
}

async function send(call: Call, request: Outgoing): Promise<Response> {
  call.reached = true;
  const { settings, signal, method, path } = call;
  const init: RequestInit = {
    method,
    headers: request.init.headers,
    body: request.init.body,
    redirect: "manual",
  };
  for (let attempt = 1; ; attempt++) {
    if (signal?.aborted) throw signal.reason;
    const started = Date.now();
    const linked = new LinkedSignal(signal, call.timeoutMs);
    let failure: StudioError;
    let status: number | undefined;
    try {
      init.signal = linked.signal;
      const response = await settings.fetch(request.url, init);
      status = response.status;
      if (response.ok && !response.redirected) {
        log(call, attempt, status, started, "ok", undefined);
        // The body is read by openapi-fetch (or a stream) within this attempt's timeout, or, for a stream,
        // until the caller's signal aborts: `result` ends the attempt once the body is read.
        if (call.stream) linked.stopTimer();
        else if (!lengthBounded(call, response)) countBytesRead(call, response);
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
      failure = linked.timedOut
        ? new StudioTimeoutError(
            `${method} ${path} timed out after ${call.timeoutMs} ms (attempt ${attempt})`,
            {
              timeoutMs: call.timeoutMs,
            },
          )
        : networkFailure(call, error);
    }
    linked.dispose();
    const retryInMs = attempt <= call.maxRetries ? retryDelay(failure, attempt) : undefined;
    log(call, attempt, status, started, outcomeOf(failure), retryInMs);
    if (retryInMs === undefined) throw failure;
    await sleep(retryInMs, signal);
  }
}

/**
 * Whether HTTP framing bounds the body: exactly `content-length` bytes, within the limit. A compressed
 * body may inflate to anything.
 */
function lengthBounded(call: Call, response: Response): boolean {
  const length = response.headers.get("content-length");
  if (length === "0") call.emptyBody = true;
  return (
    length !== null &&
    Number(length) <= call.settings.maxResponseBytes &&
    !response.headers.has("content-encoding")
  );
}

/**
 * openapi-fetch reads a body with `text()` or `json()`: on this answer they count its bytes as they read,
 * so a body of unknown length is bounded without being copied into a new Response.
 */
function countBytesRead(call: Call, response: Response): void {
  const text = async () => {
    const bytes = await readBody(response, call.settings.maxResponseBytes, `${call.method} ${call.path}`);
    if (!bytes?.byteLength) call.emptyBody = true;
    return bytes ? decodeText(bytes) : "";
  };
  Object.defineProperties(response, {
    text: { value: text },
    json: { value: async () => JSON.parse(await text()) },
  });
}

/** A fetch that threw: a connection error, unless it failed in this process (then it is not retried). */
function networkFailure(call: Call, error: unknown): StudioError {
  const where = `${call.method} ${call.path}`;
  const text = safeText(error, call.settings.secrets);
  if (error instanceof RangeError || error instanceof ReferenceError || error instanceof SyntaxError) {
    return new StudioError(`${where} failed in this process: ${text}`);
  }
  // The original error is kept for debugging, unless anything in it mentions a secret.
  let trace = printable(error);
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    trace += `${e.message}\n${e.stack ?? ""}\n`;
  }
  const cause = containsSecret(trace, call.settings.secrets) ? undefined : error;
  return new StudioConnectionError(`${where} failed: ${text}`, {
    method: call.method,
    path: call.path,
    cause,
  });
}

/** How long to wait before retrying after `failure`, or undefined when it must not be retried. */
function retryDelay(failure: StudioError, retry: number): number | undefined {
  if (failure instanceof StudioApiError) {
    if (!isRetryableStatus(failure.status)) return undefined;
    const asked = failure.retryAfterMs;
    if (asked !== undefined) return asked <= MAX_RETRY_AFTER_MS ? asked : undefined;
  } else if (!(failure instanceof StudioTimeoutError || failure instanceof StudioConnectionError)) {
    return undefined;
  }
  return backoffMs(retry);
}

function outcomeOf(failure: StudioError): StudioRequestLog["outcome"] {
  if (failure instanceof StudioApiError) return "http-error";
  return failure instanceof StudioTimeoutError ? "timeout" : "connection-error";
}

function log(
  call: Call,
  attempt: number,
  status: number | undefined,
  started: number,
  outcome: StudioRequestLog["outcome"],
  retryInMs: number | undefined,
): void {
  const { logger, secrets } = call.settings;
  try {
    logger?.({
      method: call.method,
      path: call.path,
      attempt,
      status,
      durationMs: Date.now() - started,
      authorization: secrets.length > 0 ? "Bearer [redacted]" : undefined,
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
