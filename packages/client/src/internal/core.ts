import createClient, { type Client, defaultPathSerializer } from "openapi-fetch";
import type { ClientOptions, RequestOptions } from "../options.js";
import { parseBaseUrl } from "./base-url.js";
import { type Budget, Exchange, type Handover, type Outgoing, type Transport } from "./exchange.js";
import type { AnyOperation, JsonAnswer, JsonOperation, Method, Operation, PathOf } from "./operation.js";
import {
  assertFunction,
  assertPositive,
  assertRetries,
  assertSignal,
  checkObject,
  refuse,
} from "./validate.js";

// The one request core both clients stand on. An operation is one declaration: its method, its path as the
// contract writes it, its parameters and body; the core builds the request from those parts and sends it
// through an Exchange (attempts, timeouts, retries, bounded reads, errors; see exchange.ts). The raw
// openapi-fetch client goes through the same Exchange, as its `fetch`.
//
// The operations do not go through openapi-fetch: it builds a Request per call (its headers merged into two
// Headers objects, its body a stream), which fetch would then build again. Profiled with --cpu-prof, that
// second Request, its AbortSignal and the body read back were most of what a call cost over bare fetch.

export interface Core<Paths extends {}> {
  /** The openapi-fetch client: through the core, with the client's timeout and retries, as raw is. */
  readonly api: Client<Paths>;
  readonly baseUrl: string;
  readonly timeoutMs: number;
  /**
   * Sends the operation and resolves with its 2xx answer read as JSON, once `check` finds nothing broken
   * in it; the answer's type is the contract's. Any failure is a StudioError, or the abort reason.
   */
  run<M extends Method, P extends PathOf<Paths, M>>(
    operation: JsonOperation<Paths, M, P>,
    options: RequestOptions | undefined,
  ): Promise<JsonAnswer<Paths, M, P>>;
  /** Like `run`, for a route whose 2xx answer is text. */
  text<M extends Method, P extends PathOf<Paths, M>>(
    operation: Operation<Paths, M, P>,
    options: RequestOptions | undefined,
  ): Promise<string>;
  /** A streaming operation: resolves with its unread 2xx answer once the headers are in. */
  stream<M extends Method, P extends PathOf<Paths, M>>(
    operation: Operation<Paths, M, P>,
    options: RequestOptions | undefined,
  ): Promise<Response>;
}

/** What a client fixes for its core: its credential, headers and defaults. */
export interface CoreSettings {
  secret: string | undefined;
  headers: Record<string, string>;
  timeoutMs: number;
  maxRetries: number;
  /** The path of the server's root, from the base URL's path (vLLM's reads `/v1` at the end as the root). */
  rootPath?: (pathname: string) => string;
}

/** Checks the options both clients share and builds the core on them. */
export function createCore<Paths extends {}>(options: ClientOptions, client: CoreSettings): Core<Paths> {
  checkBudget("", options);
  assertPositive("maxResponseBytes", options.maxResponseBytes, Number.MAX_SAFE_INTEGER, "bytes");
  assertFunction("fetch", options.fetch);
  assertFunction("logger", options.logger);
  const baseUrl = parseBaseUrl(options.baseUrl, {
    field: "baseUrl",
    sendsSecret: client.secret !== undefined,
    allowInsecureHttp: options.allowInsecureHttp === true,
    rootPath: client.rootPath,
  });
  const headers = headersOf(options.headers, client.headers);
  const transport = transportOf(options, client.secret);
  const timeoutMs = options.timeoutMs ?? client.timeoutMs;
  const defaults: Budget = {
    signal: undefined,
    timeoutMs,
    maxRetries: options.maxRetries ?? client.maxRetries,
  };
  const exchange = (callOptions: RequestOptions | undefined, handover: Handover) =>
    new Exchange(transport, budgetOf(callOptions, defaults), handover);
  const send = (made: Exchange, operation: AnyOperation) =>
    made.send(outgoing(made, baseUrl, headers, operation));
  /** The Exchange of an operation whose 2xx body it has read. */
  const kept = async (operation: AnyOperation, callOptions: RequestOptions | undefined) => {
    const made = exchange(callOptions, "keep");
    await send(made, operation);
    return made;
  };
  const core: Core<Paths> = {
    // Its requests go through the core's transport, which refuses redirects too.
    api: createClient<Paths>({
      baseUrl,
      headers,
      fetch: (request: Request) =>
        new Exchange(transport, { ...defaults, signal: request.signal }, "copy").fetchRequest(request),
    }),
    baseUrl,
    timeoutMs,
    async run(operation: AnyOperation, callOptions) {
      const made = await kept(operation, callOptions);
      const data = made.json();
      const broken = operation.check?.(data);
      if (broken) throw made.broken(broken);
      // The one place the contract's type is given to what the check has held to it, as openapi-fetch's `data`.
      return data as never;
    },
    text: async (operation: AnyOperation, callOptions) => (await kept(operation, callOptions)).text(),
    stream: (operation: AnyOperation, callOptions) => send(exchange(callOptions, "stream"), operation),
  };
  return core;
}

/**
 * How a client sends one attempt. The API has no redirects: a 3xx is an error, never followed (to another
 * origin least of all). The global fetch is looked up at call time, never detached from globalThis (browsers care).
 */
function transportOf(options: ClientOptions, secret: string | undefined): Transport {
  const given = options.fetch;
  return {
    send(request, signal) {
      const init: RequestInit = { ...request, signal, redirect: "manual" };
      return given ? given(new Request(request.url, init)) : globalThis.fetch(request.url, init);
    },
    secrets: secret === undefined ? [] : [secret],
    logger: options.logger,
    maxResponseBytes: options.maxResponseBytes ?? 64 * 1024 * 1024,
  };
}

/** A call's budget: the client's, or the call's own options checked and filled from it. */
function budgetOf(given: RequestOptions | undefined, defaults: Budget): Budget {
  if (given === undefined) return defaults;
  const { signal, timeoutMs, maxRetries } = checkBudget("options.", checkObject("options", given));
  return {
    signal,
    timeoutMs: timeoutMs ?? defaults.timeoutMs,
    maxRetries: maxRetries ?? defaults.maxRetries,
  };
}

/** The operation's request, built once for all its attempts; a failure to build it is the Exchange's to name. */
function outgoing(
  exchange: Exchange,
  baseUrl: string,
  headers: Record<string, string>,
  { method, path, params, body, headers: own }: AnyOperation,
): Outgoing {
  try {
    return {
      method,
      url: defaultPathSerializer(baseUrl + path, params?.path ?? {}),
      // The caller's headers may name another content type.
      headers:
        body === undefined
          ? { ...headers, ...own }
          : { "content-type": "application/json", ...headers, ...own },
      body: body === undefined ? null : JSON.stringify(body),
    };
  } catch (error) {
    throw exchange.unsent(error);
  }
}

/** The timeout, retries and signal of the client's options (`prefix` "") or of a call's ("options."). */
function checkBudget(prefix: string, options: RequestOptions): RequestOptions {
  assertSignal(`${prefix}signal`, options.signal);
  assertPositive(`${prefix}timeoutMs`, options.timeoutMs);
  assertRetries(`${prefix}maxRetries`, options.maxRetries);
  return options;
}

/**
 * Every request's headers, names in lower case (so that no two spell one header): the caller's, then the
 * client's own (lower case too), whose credential is the one sent. What fetch would refuse is refused here.
 */
function headersOf(given: unknown, own: Record<string, string>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(checkObject("headers", given ?? {}))) {
    const lower = name.toLowerCase();
    if (lower !== "authorization") headers[lower] = String(value);
  }
  Object.assign(headers, own);
  try {
    new Headers(headers);
  } catch {
    // Not echoed: a header may carry a credential.
    throw refuse("headers", "must be valid HTTP headers", given);
  }
  return headers;
}
