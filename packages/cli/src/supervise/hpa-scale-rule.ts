import {
  decideHpa,
  type FleetCounts,
  type FleetSample,
  HPA_DEFAULTS,
  type HpaRulePolicy,
  type HpaState,
  type ScaleDecision,
} from "@finetune-studio/serve-kit/internal";
import { POLL_MS, type ScaleRule } from "./scale-rule.js";
import type { AutoscaleSettings } from "./types.js";

/**
 * `--scale-rule hpa`: the Kubernetes HPA as production-stack's KEDA prometheus trigger drives it, one sync
 * every HPA_DEFAULTS.syncMs from the autoscaler's start, on one read of the instances (serve-kit's
 * decideHpa). It keeps the HPA's recommendations across steps, as the HPA does: `--scale-down-after` is its
 * scale-down stabilization window. A sync due while a step ran happens at the next look.
 */
export class HpaRule implements ScaleRule {
  #state: HpaState;
  #nextSyncMs: number;
  readonly #policy: HpaRulePolicy;

  constructor(
    settings: AutoscaleSettings,
    private readonly startMs: number,
  ) {
    const { min, max, signals, downAfterMs } = settings;
    this.#policy = { min, max, queue: signals.queue, kv: signals.kv, downStabilizationMs: downAfterMs };
    this.#state = { replicas: min, recommendations: [] };
    this.#nextSyncMs = startMs + HPA_DEFAULTS.syncMs;
  }

  /** Until the next sync when it falls before the next look, so the syncs keep their 15 s. */
  waitMs(nowMs: number): number {
    const until = this.#nextSyncMs - nowMs;
    return until > 0 && until < POLL_MS ? until : POLL_MS;
  }

  /** True once per sync; the next one is the first of the 15 s grid after `nowMs`. */
  readsAt(nowMs: number): boolean {
    if (nowMs < this.#nextSyncMs) return false;
    const { syncMs } = HPA_DEFAULTS;
    this.#nextSyncMs = this.startMs + (Math.floor((nowMs - this.startMs) / syncMs) + 1) * syncMs;
    return true;
  }

  decide(sample: FleetSample, counts: FleetCounts): ScaleDecision {
    const { decision, state } = decideHpa(sample, counts, this.#state, this.#policy, sample.timeMs);
    this.#state = state;
    return decision;
  }

  stepped(): void {}
}
