import { describe, expect, it } from "vitest";
import { type HpaPolicy, type HpaState, hpaSync, hpaSyncMetrics } from "./hpa-rule.js";

// production-stack's KEDA example: queue > 5 per replica, an AverageValue target on the total.
const policy: HpaPolicy = { min: 1, max: 4, target: 5 };

function play(totals: readonly number[], start: HpaState = { replicas: 1, recommendations: [] }): number[] {
  let state = start;
  return totals.map((total, sync) => {
    state = hpaSync(state, total, sync * 15_000, policy);
    return state.replicas;
  });
}

describe("hpaSync, the HPA's replica rule", () => {
  it("sizes to ceil(total / target) and scales up at once", () => {
    expect(play([16])).toEqual([4]);
    expect(play([11])).toEqual([3]);
  });

  it("leaves the count alone within the 10% tolerance of the target", () => {
    expect(play([10.5], { replicas: 2, recommendations: [] })).toEqual([2]);
    expect(play([11.5], { replicas: 2, recommendations: [] })).toEqual([3]);
  });

  it("scales down only to the highest recommendation of the last 300 s", () => {
    const replicas = play([20, ...Array(25).fill(0)]);
    // Up to 4 at once; the 4 stays recommended for 300 s (20 syncs of 15 s), then the count drops to 1.
    expect(replicas[0]).toBe(4);
    expect(replicas.slice(1, 20).every((count) => count === 4)).toBe(true);
    expect(replicas[20]).toBe(1);
  });

  it("adds at most max(double, +4) in one sync, and stays within min and max", () => {
    const wide: HpaPolicy = { min: 1, max: 20, target: 1 };
    expect(hpaSync({ replicas: 1, recommendations: [] }, 100, 0, wide).replicas).toBe(5);
    expect(hpaSync({ replicas: 8, recommendations: [] }, 100, 0, wide).replicas).toBe(16);
    // With no recommendation kept yet, nothing holds the count up: it falls to the minimum.
    expect(hpaSync({ replicas: 8, recommendations: [] }, 0, 0, { ...wide, min: 3 }).replicas).toBe(3);
  });
});

describe("hpaSyncMetrics, the HPA with several metrics", () => {
  const limits = { min: 1, max: 8 };
  const start: HpaState = { replicas: 2, recommendations: [] };

  it("takes the largest of each metric's count: AverageValue on the total, Value on the ready replicas", () => {
    const queue = { type: "AverageValue", total: 4, target: 5 } as const;
    // 0.95 of the cache in use against 0.5: ceil(1.9 x 2 ready) = 4, past the queue's ceil(4 / 5) = 1.
    const kv = { type: "Value", value: 0.95, target: 0.5, ready: 2 } as const;
    expect(hpaSyncMetrics(start, [queue, kv], 0, limits).replicas).toBe(4);
    expect(hpaSyncMetrics(start, [{ ...queue, total: 30 }, kv], 0, limits).replicas).toBe(6);
  });

  it("counts a Value within the tolerance of its target as the current count", () => {
    const kv = { type: "Value", value: 0.85, target: 0.8, ready: 2 } as const;
    expect(hpaSyncMetrics(start, [kv], 0, limits).replicas).toBe(2);
  });

  it("plays hpaSync's one AverageValue metric alike", () => {
    const metric = { type: "AverageValue", total: 16, target: 5 } as const;
    const one = { replicas: 1, recommendations: [] };
    expect(hpaSyncMetrics(one, [metric], 0, policy)).toEqual(hpaSync(one, 16, 0, policy));
  });
});
