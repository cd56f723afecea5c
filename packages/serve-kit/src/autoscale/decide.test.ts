import { describe, expect, it } from "vitest";
import { decideScale, type FleetSample, type InstanceSignals, type ScalePolicy } from "./decide.js";

const policy: ScalePolicy = { min: 1, max: 4, queue: 5, upWindowMs: 10_000, downAfterMs: 15_000, batch: 2 };
const steady = { serving: 2, arriving: 0, draining: 0 };

function instance(waiting: number, running = 2, kvUsage: number | null = 0.3): InstanceSignals {
  return { waiting, running, kvUsage };
}

/** Samples every 5 s from 0 to `untilMs`, each with the same instances. */
function every5s(untilMs: number, serving: readonly InstanceSignals[]): FleetSample[] {
  const samples: FleetSample[] = [];
  for (let timeMs = 0; timeMs <= untilMs; timeMs += 5_000) samples.push({ timeMs, serving });
  return samples;
}

describe("decideScale: growing", () => {
  it("adds to the HPA's size, ceil(total waiting / queue), once the queue stayed past it for the window", () => {
    const samples = every5s(10_000, [instance(12), instance(10)]);
    const decision = decideScale(samples, policy, steady, 10_000);
    // ceil(22 / 5) = 5, held to the maximum: 4.
    expect(decision).toMatchObject({ action: "up", add: 2 });
    expect(decision.reason).toMatch(/22 waiting \(11 per instance\).*2 → 4/);
  });

  it("sizes for the window's mean load: a queue that built up through it is met, one spike is not followed", () => {
    const one = { serving: 1, arriving: 0, draining: 0 };
    const large = { ...policy, max: 16 };
    // A step load on one instance: 8, 20 and 32 waiting: a mean of 20, ceil(20 / 5) = 4.
    const ramp = [8, 20, 32].map((waiting, i) => ({ timeMs: i * 5_000, serving: [instance(waiting)] }));
    expect(decideScale(ramp, large, one, 10_000)).toMatchObject({ action: "up", add: 3 });
    // 6, 6 and a spike of 60: a mean of 24, 5 instances, not the 12 the spike alone asks.
    const spike = [6, 6, 60].map((waiting, i) => ({ timeMs: i * 5_000, serving: [instance(waiting)] }));
    expect(decideScale(spike, large, one, 10_000)).toMatchObject({ action: "up", add: 4 });
  });

  it("waits for the whole window: a queue seen for less time holds", () => {
    const samples = [{ timeMs: 5_000, serving: [instance(12), instance(12)] }];
    expect(decideScale(samples, policy, steady, 10_000).action).toBe("hold");
  });

  it("holds when one sample of the window was at or under the threshold", () => {
    const samples = every5s(10_000, [instance(12), instance(12)]);
    samples[1] = { timeMs: 5_000, serving: [instance(5), instance(5)] };
    expect(decideScale(samples, policy, steady, 10_000).action).not.toBe("up");
  });

  it("never passes the maximum, and adds at most max(2x, +4) in one step, as the HPA's default policies", () => {
    const flood = every5s(10_000, [instance(100)]);
    expect(decideScale(flood, policy, { serving: 1, arriving: 0, draining: 0 }, 10_000)).toMatchObject({
      action: "up",
      add: 3,
    });
    const large = { ...policy, max: 64 };
    expect(decideScale(flood, large, { serving: 1, arriving: 0, draining: 0 }, 10_000)).toMatchObject({
      action: "up",
      add: 4,
    });
    const fleet = every5s(
      10_000,
      Array.from({ length: 6 }, () => instance(100)),
    );
    expect(decideScale(fleet, large, { serving: 6, arriving: 0, draining: 0 }, 10_000)).toMatchObject({
      action: "up",
      add: 6,
    });
    const atMax = every5s(10_000, [instance(100), instance(100), instance(100), instance(100)]);
    expect(decideScale(atMax, policy, { serving: 4, arriving: 0, draining: 0 }, 10_000)).toMatchObject({
      action: "hold",
      reason: expect.stringMatching(/maximum of 4/),
    });
  });

  it("counts the instances on their way: no second start for the same queue", () => {
    const samples = every5s(10_000, [instance(8), instance(8)]);
    expect(decideScale(samples, policy, steady, 10_000)).toMatchObject({ action: "up", add: 2 });
    expect(decideScale(samples, policy, { serving: 2, arriving: 2, draining: 0 }, 10_000).action).toBe(
      "hold",
    );
  });

  it("grows on KV usage past its threshold when one is set, and only then", () => {
    const full = every5s(10_000, [instance(0, 2, 0.95), instance(0, 2, 0.85)]);
    expect(decideScale(full, policy, steady, 10_000).action).toBe("hold");
    expect(decideScale(full, { ...policy, kv: 0.8 }, steady, 10_000)).toMatchObject({ action: "up", add: 1 });
  });
});

describe("decideScale: shrinking", () => {
  it("drains one when the load would have fitted on one fewer for the whole duration", () => {
    const quiet = every5s(15_000, [instance(0, 1), instance(0, 0)]);
    const decision = decideScale(quiet, policy, steady, 15_000);
    expect(decision.action).toBe("down");
    expect(decision.reason).toMatch(/2 → 1/);
  });

  it("keeps the fleet while one fewer could not run what it runs (each runs at most --max-num-seqs)", () => {
    // 4 running on 2 instances of batch 2: on one, 2 would wait; with queue 1 that is past the threshold.
    const busy = every5s(15_000, [instance(0, 2), instance(0, 2)]);
    expect(decideScale(busy, { ...policy, queue: 1 }, steady, 15_000)).toMatchObject({
      action: "hold",
      reason: expect.stringMatching(/one fewer would not have fitted/),
    });
  });

  it("keeps the fleet while one fewer could not run every sample's load at once, or would run at its limit", () => {
    const four = { serving: 4, arriving: 0, draining: 0 };
    // 8 running and 2 waiting on 4 instances of batch 2: three run 6 at once, and 4 would wait. Two waiting
    // on each of three passes no queue threshold, but a waiting queue is no instance to spare.
    const full = every5s(15_000, [instance(1, 2), instance(1, 2), instance(0, 2), instance(0, 2)]);
    expect(decideScale(full, policy, four, 15_000)).toMatchObject({
      action: "hold",
      reason: expect.stringMatching(/one fewer would not have fitted: 2 waiting/),
    });
    // 6 at once in every sample: three would run it, at their very limit (past 5.4, 10% to spare).
    const limit = every5s(15_000, [instance(0, 2), instance(0, 2), instance(0, 1), instance(0, 1)]);
    expect(decideScale(limit, policy, four, 15_000)).toMatchObject({
      action: "hold",
      reason: expect.stringMatching(
        /3 would have been too busy: 6 requests on average over 10 s for their 6 at once/,
      ),
    });
    // 5 at once fits three's 6 with 10% to spare: one goes.
    const lighter = every5s(15_000, [instance(0, 2), instance(0, 2), instance(0, 1), instance(0, 0)]);
    expect(decideScale(lighter, policy, four, 15_000).action).toBe("down");
    // A load that just fell: the window's mean (4.5) fits, its first 10 s (6 on average) did not.
    const fell = limit.map((sample) =>
      sample.timeMs < 15_000
        ? sample
        : { timeMs: 15_000, serving: [instance(0, 0), instance(0, 0), instance(0, 0), instance(0, 0)] },
    );
    expect(decideScale(fell, policy, four, 15_000).action).toBe("hold");
  });

  it("drops to the fewest that would have fitted at once, as the HPA does, never below the minimum", () => {
    // 1 running on 4 for the whole window: one instance runs it (1 of 2 slots, within 10% to spare; its KV
    // cache 4 × 10% full).
    const fell = every5s(15_000, [
      instance(0, 1, 0.1),
      instance(0, 0, 0.1),
      instance(0, 0, 0.1),
      instance(0, 0, 0.1),
    ]);
    const four = { serving: 4, arriving: 0, draining: 0 };
    expect(decideScale(fell, policy, four, 15_000)).toMatchObject({
      action: "down",
      remove: 3,
      reason: expect.stringMatching(/^3 fewer would have fitted for 15 s .*: 4 → 1$/),
    });
    expect(decideScale(fell, { ...policy, min: 2 }, four, 15_000)).toMatchObject({
      action: "down",
      remove: 2,
    });
    // 3 running: one instance's 2 slots would not hold them, two would.
    const three = every5s(15_000, [
      instance(0, 1, 0.1),
      instance(0, 1, 0.1),
      instance(0, 1, 0.1),
      instance(0, 0, 0.1),
    ]);
    expect(decideScale(three, policy, four, 15_000)).toMatchObject({ action: "down", remove: 2 });
  });

  it("keeps the fleet while KV usage spread on one fewer would pass the threshold, or fill the cache", () => {
    const warm = every5s(15_000, [instance(0, 1, 0.5), instance(0, 0, 0.5)]);
    expect(decideScale(warm, { ...policy, kv: 0.8 }, steady, 15_000).action).toBe("hold");
    const hot = every5s(15_000, [instance(0, 1, 0.6), instance(0, 0, 0.6)]);
    expect(decideScale(hot, policy, steady, 15_000).action).toBe("hold");
  });

  it("never goes below the minimum, and waits while an instance starts or drains", () => {
    const quiet = every5s(15_000, [instance(0, 0), instance(0, 0)]);
    expect(decideScale(quiet, { ...policy, min: 2 }, steady, 15_000).action).toBe("hold");
    expect(decideScale(quiet, policy, { serving: 2, arriving: 1, draining: 0 }, 15_000).action).toBe("hold");
    expect(decideScale(quiet, policy, { serving: 2, arriving: 0, draining: 1 }, 15_000).action).toBe("hold");
  });

  it("waits for the whole duration of signals before the first drain", () => {
    const short = every5s(10_000, [instance(0, 0), instance(0, 0)]);
    expect(decideScale(short, policy, steady, 10_000)).toMatchObject({
      action: "hold",
      reason: expect.stringMatching(/fewer than 15 s of signals/),
    });
  });
});
