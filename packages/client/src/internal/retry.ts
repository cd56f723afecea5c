// When to retry and how long to wait. All three Studio operations are idempotent (two GETs and a PUT that
// sets fields), so a retry can never apply a change twice.

/** A longer wait asked for is not retried: the error goes back to the caller instead of a call hanging. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** 408 timeout, 409 conflict, 429 rate limit and every 5xx may succeed later; other statuses will not. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** Backoff for the `retry`-th retry (1-based): 0.5 s, 1 s, 2 s ... capped at 8 s, up to 25 % shorter. */
export function backoffMs(retry: number, random: () => number = Math.random): number {
  // The jitter keeps clients that failed together from coming back together.
  return Math.round(Math.min(500 * 2 ** (retry - 1), 8_000) * (1 - random() * 0.25));
}

/**
 * How long the server asked to wait: `retry-after-ms` (milliseconds, a non-standard header some APIs send),
 * else `Retry-After` as delay-seconds or an HTTP date. Undefined when absent or unreadable.
 */
export function retryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Math.ceil(Number(ms));
  const value = headers.get("retry-after") ?? "";
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  // An HTTP date names its day and month; Date.parse alone would read "-3" as the year -3.
  const date = /[a-z]/i.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
