import {
  decideScale,
  type FleetCounts,
  type FleetSample,
  keepSamples,
  type ScaleDecision,
  type ScalePolicy,
} from "@finetune-studio/serve-kit/internal";
import { POLL_MS, type ScaleRule } from "./scale-rule.js";
import type { AutoscaleSettings } from "./types.js";

/**
 * How long the load stays past a threshold before an instance is added: three reads, so one burst between
 * two reads adds nothing. Far shorter than AIBrix's 60 s panic window: on one machine the step costs only
 * GPUs that are free (or an instance that wakes in seconds), and decideScale adds at most max(2x, +4) a step.
 */
export const UP_WINDOW_MS = 3 * POLL_MS;

/**
 * `--scale-rule window`, the default: every look reads the instances and keeps the samples, and serve-kit's
 * decideScale decides on them; after a step the samples start again, so its effect is seen before the next.
 */
export class WindowRule implements ScaleRule {
  #samples: FleetSample[] = [];
  readonly #policy: ScalePolicy;

  constructor(settings: AutoscaleSettings, batch: number) {
    const { min, max, signals, downAfterMs } = settings;
    // Only kv=F given: the queue never presses, and still bounds shrinking (none may wait after it).
    const queue = signals.queue ?? Number.POSITIVE_INFINITY;
    this.#policy = { min, max, queue, kv: signals.kv, upWindowMs: UP_WINDOW_MS, downAfterMs, batch };
  }

  waitMs(): number {
    return POLL_MS;
  }

  readsAt(): boolean {
    return true;
  }

  decide(sample: FleetSample, counts: FleetCounts): ScaleDecision {
    this.#samples = keepSamples(this.#samples, sample, this.#policy);
    return decideScale(this.#samples, this.#policy, counts, sample.timeMs);
  }

  stepped(): void {
    this.#samples = [];
  }
}
