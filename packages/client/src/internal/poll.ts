import { StudioApiError, StudioConnectionError, StudioTimeoutError } from "../errors.js";
import { isRetryableStatus } from "./retry.js";
import { LinkedSignal, sleep } from "./signals.js";
import { assertPositive, assertSignal, checkObject } from "./validate.js";

// One loop for both waits (recommendations, a starting chat server): probe, pause, probe again, within one
// deadline that covers requests and pauses alike. A transient failure means "not yet": try again later.

/** Both waits give up after 10 minutes unless told otherwise. */
const DEFAULT_WAIT_MS = 600_000;

export interface PollSettings {
  readonly timeoutMs: number;
  readonly intervalMs: number;
  /** Each pause is 1.5 times the last, up to this (or `intervalMs`, if larger). */
  readonly maxIntervalMs: number;
  readonly signal: AbortSignal | undefined;
  /** The timeout error's message; `lastProblem` is what the last probe said, if it failed. */
  readonly timeoutMessage: (lastProblem: string | undefined) => string;
}

/** Resolves with the first value `probe` returns; `undefined` means "not yet". What it throws stops the wait, unless transient. */
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
        const asked = error instanceof StudioApiError ? error.retryAfterMs : undefined;
        if (asked !== undefined && asked > pause) pause = asked;
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
  if (error instanceof StudioConnectionError || error instanceof StudioTimeoutError) return true;
  return error instanceof StudioApiError && isRetryableStatus(error.status);
}

/** The options of a wait (`timeoutMs`, `intervalMs`, `signal`), checked, with defaults; `field` names them. */
export function checkWaitOptions(field: string, options: unknown, defaultIntervalMs: number) {
  const checked = options === undefined ? {} : checkObject(field, options);
  assertSignal(`${field}.signal`, checked.signal);
  assertPositive(`${field}.timeoutMs`, checked.timeoutMs);
  assertPositive(`${field}.intervalMs`, checked.intervalMs);
  return {
    timeoutMs: (checked.timeoutMs as number | undefined) ?? DEFAULT_WAIT_MS,
    intervalMs: (checked.intervalMs as number | undefined) ?? defaultIntervalMs,
    signal: checked.signal as AbortSignal | undefined,
  };
}
