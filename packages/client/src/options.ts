import type { StudioLogger } from "./logger.js";

/** Options every call accepts. */
export interface RequestOptions {
  /** Cancels the call at once, also while it waits between retries; the call rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Per-attempt timeout in milliseconds; overrides the client's. */
  timeoutMs?: number;
  /** How many times a failed attempt may be retried; overrides the client's. */
  maxRetries?: number;
}

/** A `fetch` to use instead of the global one (a test double, a proxy-aware fetch...). */
export type FetchFunction = (request: Request) => Promise<Response>;

/** The options both clients share (`StudioClientOptions` and `ChatClientOptions` extend them). */
export interface ClientOptions {
  /** The server's root URL; every API path is relative to it. */
  baseUrl: string;
  /** Per-attempt timeout in milliseconds, until the whole answer is read. */
  timeoutMs?: number;
  /** Retries of a failed attempt (connection error, timeout, 408, 409, 429, 5xx). */
  maxRetries?: number;
  fetch?: FetchFunction;
  /** Extra headers for every request. `Authorization` is always the client's own. */
  headers?: Record<string, string>;
  /** Called once per attempt with method, path, status, attempt, duration and a redacted Authorization. */
  logger?: StudioLogger;
  /** Allow `http://` to a host other than this machine, sending the credential in clear. Default false. */
  allowInsecureHttp?: boolean;
  /** An answer's body may be at most this many bytes (after decompression). Default 64 MiB. */
  maxResponseBytes?: number;
}
