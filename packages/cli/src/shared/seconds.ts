import { MAX_TIMER_MS } from "@finetune-studio/internal";
import { UsageError } from "./io.js";

/** The most seconds any duration option takes: what a timer (here and in the client) can wait. */
export const MAX_SECONDS = Math.floor(MAX_TIMER_MS / 1000);

/**
 * The one rule for every duration option: whole seconds from `min` to MAX_SECONDS (about 24.8 days), so a
 * value the CLI accepts is one the client's timers accept too. Checked before anything starts.
 */
export function parseSeconds(
  flag: string,
  value: unknown,
  fallback: number,
  min: number,
  helpFor: string,
): number {
  if (value === undefined) return fallback;
  const text = typeof value === "string" ? value : String(value);
  const seconds = /^\d{1,10}$/.test(text) ? Number(text) : Number.NaN;
  if (!(seconds >= min && seconds <= MAX_SECONDS)) {
    throw new UsageError(
      `--${flag}: must be a whole number of seconds from ${min} to ${MAX_SECONDS} (given ${shownValue(text)})`,
      helpFor,
    );
  }
  return seconds;
}

function shownValue(text: string): string {
  return text.length > 40 ? `a ${text.length}-character value` : JSON.stringify(text);
}
