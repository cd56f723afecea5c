import { refuse } from "../internal/validate.js";

// The words a person types for an elastic fleet, parsed once for `stack values --replicas MIN..MAX` and
// (later) `launch --instances MIN..MAX`: pure functions that return the value or throw a ServeConfigError
// naming the field, the rule and what was given.

/** How many instances (pods) may serve: from `min` up to `max`; equal ends are a fixed fleet. */
export interface ScalingRange {
  min: number;
  max: number;
}

const WHOLE = /^\d{1,9}$/;

/**
 * `N` (a fixed fleet) or `MIN..MAX`. MIN is at least 1: none of our front doors holds a request while an
 * instance starts, so a fleet scaled to zero would refuse the first request (production-stack's router
 * answers 503 then), and MAX is at least MIN.
 */
export function parseScalingRange(text: string, field: string): ScalingRange {
  const [low = "", high = low, ...rest] = text.trim().split("..");
  if (rest.length > 0 || !WHOLE.test(low) || !WHOLE.test(high)) {
    refuse(field, "must be a whole number N or a range MIN..MAX such as 1..4", text);
  }
  return checkScalingRange({ min: Number(low), max: Number(high) }, field, text);
}

/** A range from plain JavaScript (`{ min, max }`) or a number (a fixed fleet), checked as the words are. */
export function checkScalingRange(value: unknown, field: string, given: unknown = value): ScalingRange {
  const range =
    typeof value === "number" ? { min: value, max: value } : (value as Partial<ScalingRange> | null);
  const { min, max } = range ?? {};
  if (typeof value !== "number" && (typeof range !== "object" || range === null)) {
    refuse(field, "must be a whole number or a range { min, max }", given);
  }
  if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max)) {
    refuse(field, "must be whole numbers", given);
  }
  if ((min as number) < 1) {
    refuse(
      field,
      "must start at 1 or more: no instance would be left to answer while the first one starts",
      given,
    );
  }
  if ((max as number) < (min as number)) refuse(field, "must end at MIN or more (MIN..MAX)", given);
  return { min: min as number, max: max as number };
}

/** True when the range lets the fleet grow or shrink. */
export function isElastic(range: ScalingRange): boolean {
  return range.max > range.min;
}
