import type { FleetCounts, FleetSample, ScaleDecision } from "@finetune-studio/serve-kit/internal";

/** How often the autoscaler looks at the fleet (and, with the window rule, reads the instances' `/metrics`). */
export const POLL_MS = 2_000;

/**
 * What decides an elastic fleet's size (`--scale-rule`): the autoscaler reads the instances when the rule
 * says and acts on its decision; the rule keeps whatever it remembers between reads.
 */
export interface ScaleRule {
  /** How long the autoscaler waits before its next look, at most POLL_MS (each look checks MIN). */
  waitMs(nowMs: number): number;
  /** Whether this look reads the instances and decides: each window look, each HPA sync once. */
  readsAt(nowMs: number): boolean;
  /** The decision on one read of the serving instances (the front door's queue spread as waiting). */
  decide(sample: FleetSample, counts: FleetCounts): ScaleDecision;
  /** A step was taken: the fleet it read before is not the one after. */
  stepped(): void;
}
