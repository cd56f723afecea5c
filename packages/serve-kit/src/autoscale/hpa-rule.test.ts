import { describe, expect, it } from "vitest";
import { type HpaPolicy, type HpaState, hpaSync } from "./hpa-rule.js";

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
