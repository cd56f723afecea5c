import { refuse } from "../internal/validate.js";

const UNIT_SECONDS = { s: 1, m: 60, h: 3600 } as const;

/**
 * A duration as a person writes it, `15s`, `5m`, `1h` (or bare seconds, `90`), in whole seconds from `min`
 * to `max`: what `--scale-down-after` takes.
 */
export function parseDuration(text: string, field: string, min = 1, max = 86_400): number {
  const match = /^(\d{1,7})([smh]?)$/.exec(text.trim());
  if (match === null) {
    refuse(field, "must be a duration such as 15s, 5m or 1h (whole seconds, minutes or hours)", text);
  }
  const unit = (match[2] || "s") as keyof typeof UNIT_SECONDS;
  const seconds = Number(match[1]) * UNIT_SECONDS[unit];
  if (seconds < min || seconds > max) {
    refuse(field, `must be from ${durationText(min)} to ${durationText(max)}`, text);
  }
  return seconds;
}

/** Whole seconds in the largest unit that divides them: 300 is `5m`, 90 is `90s`. */
export function durationText(seconds: number): string {
  if (seconds > 0 && seconds % 3600 === 0) return `${seconds / 3600}h`;
  if (seconds > 0 && seconds % 60 === 0) return `${seconds / 60}m`;
  return `${seconds}s`;
}

/**
 * How long the load must stay low before an instance (a replica) goes: the HPA's scale-down stabilization window, which is
 * what paces scaling down while MIN is 1 or more (KEDA's cooldownPeriod only paces the step to zero). 5 min
 * is the HPA's own default: an engine takes minutes to start again, so a short lull should not cost one.
 * `launch` uses it too: one machine and the cluster answer a lull the same way.
 */
export const DEFAULT_SCALE_DOWN_AFTER_SECONDS = 300;
