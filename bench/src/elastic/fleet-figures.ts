// What the elastic bench reports of a run, from the fleet's readings and the load's records (both on one
// clock): instance-seconds, when the fleet grew and shrank, and the latency of the requests sent in a span.
import { percentile } from "../stats.js";
import type { FleetReading } from "./fleet-watch.js";
import type { LoadRecord } from "./step-load.js";

/**
 * The seconds of GPU-holding instances in [fromMs, toMs): each reading's count holds until the next
 * reading, as a gauge does between two scrapes.
 */
export function instanceSeconds(readings: readonly FleetReading[], fromMs: number, toMs: number): number {
  let total = 0;
  readings.forEach((reading, i) => {
    const next = readings[i + 1]?.timeMs ?? toMs;
    const start = Math.max(reading.timeMs, fromMs);
    const end = Math.min(next, toMs);
    if (end > start) total += (reading.holding * (end - start)) / 1000;
  });
  return total;
}

/** Seconds from `afterMs` to the first reading with more than `count` instances serving; null if none. */
export function servingAbove(
  readings: readonly FleetReading[],
  afterMs: number,
  count: number,
): number | null {
  const first = readings.find((reading) => reading.timeMs >= afterMs && reading.serving > count);
  return first === undefined ? null : (first.timeMs - afterMs) / 1000;
}

/** Seconds from `afterMs` to the first reading with at most `count` instances holding GPUs; null if none. */
export function holdingAtMost(
  readings: readonly FleetReading[],
  afterMs: number,
  count: number,
): number | null {
  const first = readings.find((reading) => reading.timeMs >= afterMs && reading.holding <= count);
  return first === undefined ? null : (first.timeMs - afterMs) / 1000;
}

/** The most instances holding GPUs at once. */
export function mostHolding(readings: readonly FleetReading[]): number {
  return Math.max(0, ...readings.map((reading) => reading.holding));
}

/** The process groups that first appear at or after `afterMs`: processes started since. */
export function groupsStartedAfter(readings: readonly FleetReading[], afterMs: number): number[] {
  const before = new Set(readings.filter((one) => one.timeMs < afterMs).flatMap((one) => one.groups));
  const after = readings.filter((one) => one.timeMs >= afterMs).flatMap((one) => one.groups);
  return [...new Set(after)].filter((group) => !before.has(group));
}

/** The p95 end-to-end latency (ms) of the completed requests sent in [fromMs, toMs); null if none. */
export function latencyP95(records: readonly LoadRecord[], fromMs: number, toMs: number): number | null {
  const inSpan = records.filter((one) => one.ok && one.sentMs >= fromMs && one.sentMs < toMs);
  return inSpan.length === 0
    ? null
    : percentile(
        inSpan.map((one) => one.latencyMs),
        0.95,
      );
}

export function failed(records: readonly LoadRecord[]): number {
  return records.filter((one) => !one.ok).length;
}
