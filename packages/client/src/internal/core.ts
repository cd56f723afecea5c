import createClient, { type Client } from "openapi-fetch";
import type { ClientOptions, RequestOptions } from "../options.js";
import { baseUrlString, parseBaseUrl } from "./base-url.js";
import { type Broken, Exchange, type Transport } from "./exchange.js";
import {
  assertFunction,
  assertPositive,
  assertRetries,
  assertSignal,
  checkObject,
  isPlainObject,
  refuse,
} from "./validate.js";

// The one request core both clients stand on. openapi-fetch builds each request (typed path, params, body);
// the Exchange of each call is the `fetch` it is given, and reads the answer (see exchange.ts).

/** What an operation hands its openapi-fetch call: the call's fetch, and a body left for the core to read. */
export interface Sending {
  fetch: (request: Request) => Promise<Response>;
  parseAs: "stream";
}

/** An operation's openapi-fetch call, made with `sending`. */
export type Send = (sending: Sending) => Promise<{ response: Response }>;

export interface Core<Paths extends {}> {
  /** The openapi-fetch client: through the core, with the client's timeout and retries, as raw is. */
  readonly api: Client<Paths>;
  readonly baseUrl: string;
  readonly timeoutMs: number;
  /**
   * One operation: sends it, reads its 2xx answer as JSON (or `text`), and refuses one that `check` finds
   * broken. Any failure is a StudioError, or the abort reason.
   */
  run(
    options: RequestOptions | undefined,
    send: Send,
    check?: (data: unknown) => Broken | undefined,
    as?: "text",
  ): Promise<unknown>;
  /** A streaming operation: resolves with its unread 2xx answer once the headers are in. */
  stream(options: RequestOptions | undefined, send: Send): Promise<Response>;
}

/** Checks the options both clients share and builds the openapi-fetch client on the core. */
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
  const transport: Transport = {
    // The global fetch is looked up at call time, never detached from globalThis (browsers care).
    send: given
      ? (request, init) => given(new Request(request, init))
      : (request, init) =>
          globalThis.fetch(request.url, {
            method: request.method,
            headers: request.headers,
            redirect: request.redirect,
            ...init,
          }),
    secrets: secret === undefined ? [] : [secret],
    logger: options.logger,
    maxResponseBytes: options.maxResponseBytes ?? 64 * 1024 * 1024,
  };
  const timeoutMs = options.timeoutMs ?? client.timeoutMs;
  const maxRetries = options.maxRetries ?? client.maxRetries;
  const budget = (given: RequestOptions | undefined) => {
    const {
      signal,
      timeoutMs: ms,
      maxRetries: retries,
    } = given === undefined ? {} : checkObject("options", given);
    assertSignal("options.signal", signal);
    assertPositive("options.timeoutMs", ms);
    assertRetries("options.maxRetries", retries);
    return { signal, timeoutMs: ms ?? timeoutMs, maxRetries: retries ?? maxRetries };
  };
  // The client's own credential is the one sent.
  const headers = Object.fromEntries(
    Object.entries(options.headers ?? {}).filter(([name]) => name.toLowerCase() !== "authorization"),
  );
  Object.assign(headers, client.headers);
  const defaults = budget(undefined);
  return {
    // The API has no redirects: a 3xx is an error, never followed (to another origin least of all).
    api: createClient<Paths>({
      baseUrl,
      headers,
      redirect: "manual",
      fetch: (request: Request) => new Exchange(transport, defaults, "copy").fetch(request),
    }),
    baseUrl,
    timeoutMs,
    async run(callOptions, send, check, as) {
      const exchange = new Exchange(transport, budget(callOptions), "keep");
      await sent(exchange, send);
      const data = as === "text" ? exchange.text() : exchange.json();
      const broken = check?.(data);
      if (broken) throw exchange.broken(broken);
      return data;
    },
    stream: (callOptions, send) => sent(new Exchange(transport, budget(callOptions), "stream"), send),
  };
}

/** The answer of an operation's openapi-fetch call made through `exchange`; any failure as `failure` says. */
async function sent(exchange: Exchange, send: Send): Promise<Response> {
  try {
    return (await send({ fetch: exchange.fetch, parseAs: "stream" })).response;
  } catch (error) {
    throw exchange.failure(error);
  }
}
