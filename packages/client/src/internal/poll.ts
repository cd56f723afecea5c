import { StudioApiError, StudioConnectionError, StudioTimeoutError } from "../errors.js";
import { isRetryableStatus } from "./retry.js";
import { LinkedSignal, sleep } from "./signals.js";
import { assertPositive, assertSignal, checkObject } from "./validate.js";

// One loop for both waits (recommendations, a starting chat server): probe, pause, probe again, within one
// deadline that covers requests and pauses alike. A transient failure means "not yet": try again later.

interface PollSettings {
  readonly timeoutMs: number;
  readonly intervalMs: number;
  /** Each pause is 1.5 times the last, up to this (or `intervalMs`, if larger). */
  readonly maxIntervalMs: number;
  readonly signal: AbortSignal | undefined;
  /** The timeout error's message; `lastProblem` is what the last probe said, if it failed. */
  readonly timeoutMessage: (lastProblem: string | undefined) => string;
}

/** The first value `probe` returns (`undefined` is "not yet"). What it throws ends the wait, unless transient. */
export async function poll<T>(
  settings: PollSettings,
  probe: (signal: AbortSignal, poll: number) => Promise<T | undefined>,
): Promise<T> {
  const { timeoutMs, intervalMs, maxIntervalMs } = settings;
  let lastProblem: string | undefined;
  const deadline = new LinkedSignal(
    settings.signal,
    timeoutMs,
    () => new StudioTimeoutError(settings.timeoutMessage(lastProblem), { timeoutMs }),
  );
  try {
    for (let count = 1, interval = intervalMs; ; count++) {
      let pause = interval;
      try {
        const value = await probe(deadline.signal, count);
        if (value !== undefined) return value;
        lastProblem = undefined;
      } catch (error) {
        if (deadline.signal.aborted) throw deadline.signal.reason;
        if (!isTransient(error)) throw error;
        lastProblem = (error as Error).message;
        // A 429 or 503 may say how long to wait: never come back sooner.
        pause = Math.max(interval, (error as { retryAfterMs?: number }).retryAfterMs ?? 0);
      }
      await sleep(pause, deadline.signal);
      interval = Math.min(interval * 1.5, Math.max(maxIntervalMs, intervalMs));
    }
  } finally {
    deadline.dispose();
  }
}

/** Failures that go away by themselves: no answer, a timeout, 408, 409, 429 or a 5xx. */
export function isTransient(error: unknown): boolean {
  if (error instanceof StudioApiError) return isRetryableStatus(error.status);
  return error instanceof StudioConnectionError || error instanceof StudioTimeoutError;
}

/** The options of a wait, checked, with defaults (10 minutes for `timeoutMs`); `field` names them. */
export function checkWaitOptions(field: string, options: unknown, defaultIntervalMs: number) {
  const { signal, timeoutMs, intervalMs } = options === undefined ? {} : checkObject(field, options);
  assertSignal(`${field}.signal`, signal);
  assertPositive(`${field}.timeoutMs`, timeoutMs);
  assertPositive(`${field}.intervalMs`, intervalMs);
  return { timeoutMs: timeoutMs ?? 600_000, intervalMs: intervalMs ?? defaultIntervalMs, signal };
}
