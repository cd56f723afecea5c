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
