import { describe, expect, it } from "vitest";
import type { FleetCounts, FleetSample, InstanceSignals } from "./decide.js";
import { decideHpa, type HpaRulePolicy } from "./hpa-decide.js";
import type { HpaState } from "./hpa-rule.js";

// production-stack's KEDA default on a fleet of 1..4: queue 5 per replica, a 60 s stabilization here.
const policy: HpaRulePolicy = { min: 1, max: 4, queue: 5, downStabilizationMs: 60_000 };
const fresh: HpaState = { replicas: 1, recommendations: [] };

function serving(
  n: number,
  waiting: number,
  kvUsage: number | null = 0.3,
): FleetCounts & { sample: FleetSample } {
  const one: InstanceSignals = { waiting: 0, running: 2, kvUsage };
  const instances = Array.from({ length: n }, (_, i) => ({ ...one, waiting: i === 0 ? waiting : 0 }));
  return { serving: n, arriving: 0, draining: 0, sample: { timeMs: 0, serving: instances } };
}

function sync(fleet: ReturnType<typeof serving>, state: HpaState, nowMs: number, rule = policy) {
  return decideHpa({ ...fleet.sample, timeMs: nowMs }, fleet, state, rule, nowMs);
}

describe("decideHpa: the HPA's rule on one read of the fleet", () => {
  it("grows to ceil(total waiting / target) at a sync, naming the rule's figures", () => {
    const { decision } = sync(serving(1, 37), fresh, 0);
    expect(decision).toEqual({
      action: "up",
      add: 3,
      reason: "hpa: 37 waiting in all, target 5 per instance: 1 → 4",
    });
  });

  it("counts the instances on their way as replicas", () => {
    const fleet = { ...serving(1, 20), arriving: 1 };
    expect(sync(fleet, fresh, 0).decision).toMatchObject({ action: "up", add: 2 });
  });

  it("holds within the 10% tolerance of the target", () => {
    // 16 waiting on 3 is 1.07 of the target: the HPA leaves 3, where ceil(16 / 5) would be 4.
    const { decision } = sync(serving(3, 16), { replicas: 3, recommendations: [] }, 0);
    expect(decision).toEqual({
      action: "hold",
      reason: "hpa: 16 waiting in all, target 5 per instance: holds at 3",
    });
  });

  it("holds a scale-down for the stabilization window, then removes the difference at once", () => {
    let state = sync(serving(1, 20), fresh, 0).state;
    const idle = serving(4, 0);
    const steps = [15_000, 30_000, 45_000, 60_000].map((nowMs) => {
      const step = sync(idle, state, nowMs);
      state = step.state;
      return step.decision;
    });
    expect(steps.slice(0, 3).map((one) => one.action)).toEqual(["hold", "hold", "hold"]);
    expect(steps[0]?.reason).toBe(
      "hpa: 0 waiting in all, target 5 per instance: wants 1, held by the highest recommendation of the last 60 s: holds at 4",
    );
    // The 4 recommended at 0 s has left the window at 60 s.
    expect(steps[3]).toMatchObject({ action: "down", remove: 3 });
    expect(steps[3]?.reason).toMatch(/: 4 → 1$/);
  });

  it("never goes past MAX or below MIN", () => {
    const full = { replicas: 4, recommendations: [] };
    expect(sync(serving(4, 500), full, 0).decision).toMatchObject({ action: "hold", reason: /holds at 4$/ });
    const floor = { ...policy, min: 2 };
    expect(sync(serving(2, 0), { replicas: 2, recommendations: [] }, 0, floor).decision.action).toBe("hold");
    // A flood from 1 on a wide range: at most max(2x, +4) in one sync, said.
    const wide = { ...policy, max: 16 };
    expect(sync(serving(1, 500), fresh, 0, wide).decision).toMatchObject({
      action: "up",
      add: 4,
      reason:
        "hpa: 500 waiting in all, target 5 per instance: 1 → 5 (wants 16; at most max(2x, +4) per sync)",
    });
  });

  it("with kv, takes the larger of the queue's count and the KV usage's (a Value target on the ready ones)", () => {
    const kv = { ...policy, kv: 0.8 };
    const { decision } = sync(serving(2, 0, 0.95), { replicas: 2, recommendations: [] }, 0, kv);
    // ceil(0.95 / 0.8 x 2) = 3; the queue's ceil(0 / 5) would be the minimum.
    expect(decision).toEqual({
      action: "up",
      add: 1,
      reason: "hpa: 0 waiting in all, target 5 per instance; KV usage 95% on average, target 80%: 2 → 3",
    });
    const unknown = sync(serving(2, 0, null), { replicas: 2, recommendations: [] }, 0, kv);
    expect(unknown.decision.reason).toContain("KV usage unknown (0) on average");
  });

  it("holds, keeping its state, when no instance's metrics were read", () => {
    const none = { serving: 1, arriving: 0, draining: 0 };
    const step = decideHpa({ timeMs: 0, serving: [] }, none, fresh, policy, 0);
    expect(step.decision.action).toBe("hold");
    expect(step.state).toBe(fresh);
  });
});
