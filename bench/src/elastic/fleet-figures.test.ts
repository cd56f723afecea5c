import { describe, expect, it } from "vitest";
import {
  groupsStartedAfter,
  holdingAtMost,
  instanceSeconds,
  latencyP95,
  mostHolding,
  servingAbove,
} from "./fleet-figures.js";
import type { FleetReading } from "./fleet-watch.js";

const reading = (
  timeMs: number,
  holding: number,
  serving = holding,
  groups: number[] = [],
): FleetReading => ({
  timeMs,
  holding,
  serving,
  asleep: 0,
  groups,
});

describe("the elastic bench's figures", () => {
  const readings = [reading(0, 1), reading(10_000, 2, 1, [7]), reading(13_000, 2), reading(40_000, 1)];

  it("counts instance-seconds as a step function, clipped to the span", () => {
    // 1 for 10 s, 2 for 30 s, then 1 to the end at 50 s.
    expect(instanceSeconds(readings, 0, 50_000)).toBe(10 + 60 + 10);
    expect(instanceSeconds(readings, 5_000, 12_000)).toBe(5 + 4);
    expect(instanceSeconds([], 0, 1_000)).toBe(0);
  });

  it("times the first added instance serving and the return to a count", () => {
    expect(servingAbove(readings, 5_000, 1)).toBe(8);
    expect(servingAbove(readings, 41_000, 1)).toBeNull();
    expect(holdingAtMost(readings, 20_000, 1)).toBe(20);
    expect(mostHolding(readings)).toBe(2);
  });

  it("finds the process groups that appear after a time", () => {
    const runs = [reading(0, 1, 1, [1]), reading(1_000, 2, 2, [1, 2]), reading(2_000, 2, 2, [1, 2, 3])];
    expect(groupsStartedAfter(runs, 500)).toEqual([2, 3]);
    expect(groupsStartedAfter(runs, 1_500)).toEqual([3]);
  });

  it("takes p95 latency over the completed requests sent in a span", () => {
    const records = Array.from({ length: 20 }, (_, i) => ({ ok: i !== 0, sentMs: i * 1_000, latencyMs: i }));
    expect(latencyP95(records, 0, 20_000)).toBe(19);
    expect(latencyP95(records, 10_000, 12_000)).toBe(11);
    expect(latencyP95(records, 30_000, 40_000)).toBeNull();
  });
});
