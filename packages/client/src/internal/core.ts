import createClient, { type Client, defaultPathSerializer } from "openapi-fetch";
import type { ClientOptions, RequestOptions } from "../options.js";
import { parseBaseUrl } from "./base-url.js";
import { type Broken, type Budget, Exchange, type Outgoing, type Transport } from "./exchange.js";
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

type Method = "GET" | "POST" | "PUT";
/** The contract's paths that take `method`. */
type PathOf<Paths, M extends Method> = {
  [P in keyof Paths]: Paths[P] extends Record<Lowercase<M>, object> ? P : never;
}[keyof Paths] &
  string;

/** One operation's request: a method and a path of the contract that takes it. */
export type Operation<Paths> = {
  [M in Method]: OperationParts & {
    readonly method: M;
    /** The contract's path; each `{name}` in it is filled from `params`, encoded. */
    readonly path: PathOf<Paths, M>;
  };
}[Method];

interface OperationParts {
  readonly params?: Readonly<Record<string, string>>;
  /** Sent as JSON. */
  readonly body?: unknown;
  /** This route's own headers (the chat key goes to the `/v1` routes only). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** An operation whose 2xx answer is JSON; `check` names what breaks the contract in it. */
export type JsonOperation<Paths> = Operation<Paths> & {
  readonly check?: (data: unknown) => Broken | undefined;
};

export interface Core<Paths extends {}> {
  /** The openapi-fetch client: through the core, with the client's timeout and retries, as raw is. */
  readonly api: Client<Paths>;
  readonly baseUrl: string;
  readonly timeoutMs: number;
  /**
   * Sends the operation and resolves with its 2xx answer read as JSON, once `check` finds nothing broken
   * in it (`T` is what the check holds it to). Any failure is a StudioError, or the abort reason.
   */
  run<T>(operation: JsonOperation<Paths>, options: RequestOptions | undefined): Promise<T>;
  /** Like `run`, for a route whose 2xx answer is text. */
  text(operation: Operation<Paths>, options: RequestOptions | undefined): Promise<string>;
  /** A streaming operation: resolves with its unread 2xx answer once the headers are in. */
  stream(operation: Operation<Paths>, options: RequestOptions | undefined): Promise<Response>;
}

/** Checks the options both clients share and builds the core on them. */
export function createCore<Paths extends {}>(
  options: ClientOptions,
  client: {
    secret: string | undefined;
    headers: Record<string, string>;
    timeoutMs: number;
    maxRetries: number;
    /** The path of the server's root, from the base URL's path (vLLM's reads `/v1` at the end as the root). */
    rootPath?: (pathname: string) => string;
  },
): Core<Paths> {
  checkBudget("", options);
  assertPositive("maxResponseBytes", options.maxResponseBytes, Number.MAX_SAFE_INTEGER, "bytes");
  assertFunction("fetch", options.fetch);
  assertFunction("logger", options.logger);
  const { secret } = client;
  const baseUrl = parseBaseUrl(options.baseUrl, {
    field: "baseUrl",
    sendsSecret: secret !== undefined,
    allowInsecureHttp: options.allowInsecureHttp === true,
    rootPath: client.rootPath,
  });
  const headers = headersOf(options.headers, client.headers);
  const given = options.fetch;
  const transport: Transport = {
    // The API has no redirects: a 3xx is an error, never followed (to another origin least of all). The
    // global fetch is looked up at call time, never detached from globalThis (browsers care).
    send(request, signal) {
      const init: RequestInit = { ...request, signal, redirect: "manual" };
      return given ? given(new Request(request.url, init)) : globalThis.fetch(request.url, init);
    },
    secrets: secret === undefined ? [] : [secret],
    logger: options.logger,
    maxResponseBytes: options.maxResponseBytes ?? 64 * 1024 * 1024,
  };
  const timeoutMs = options.timeoutMs ?? client.timeoutMs;
  const maxRetries = options.maxRetries ?? client.maxRetries;
  const defaults: Budget = { signal: undefined, timeoutMs, maxRetries };
  const budget = (given: RequestOptions | undefined): Budget => {
    if (given === undefined) return defaults;
    const {
      signal,
      timeoutMs: ms,
      maxRetries: retries,
    } = checkBudget("options.", checkObject("options", given));
    return { signal, timeoutMs: ms ?? timeoutMs, maxRetries: retries ?? maxRetries };
  };

  /** The operation's request, built once for all its attempts; a failure to build it is the Exchange's to name. */
  function send(exchange: Exchange, operation: Operation<Paths>): Promise<Response> {
    const { method, path, params, body, headers: own } = operation;
    let request: Outgoing;
    try {
      request = {
        method,
        url: defaultPathSerializer(baseUrl + path, params ?? {}),
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
    return exchange.send(request);
  }

  /** The Exchange of an operation whose 2xx body it has read. */
  async function kept(operation: Operation<Paths>, callOptions: RequestOptions | undefined) {
    const exchange = new Exchange(transport, budget(callOptions), "keep");
    await send(exchange, operation);
    return exchange;
  }

  return {
    // Its requests go through the core's transport, which refuses redirects too.
    api: createClient<Paths>({
      baseUrl,
      headers,
      fetch: (request: Request) =>
        new Exchange(transport, { ...defaults, signal: request.signal }, "copy").fetchRequest(request),
    }),
    baseUrl,
    timeoutMs,
    async run<T>(operation: JsonOperation<Paths>, callOptions: RequestOptions | undefined) {
      const exchange = await kept(operation, callOptions);
      const data = exchange.json();
      const broken = operation.check?.(data);
      if (broken) throw exchange.broken(broken);
      return data as T;
    },
    text: async (operation, callOptions) => (await kept(operation, callOptions)).text(),
    stream: (operation, callOptions) =>
      send(new Exchange(transport, budget(callOptions), "stream"), operation),
  };
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
