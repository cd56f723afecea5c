/** A figure of the plan: its bytes, the vLLM log line it predicts, and the rule that gave it. */
export interface PlanFigure {
  bytes: number;
  /** The start-up log line this figure predicts, or null for one vLLM does not log. */
  predicts: string | null;
  /** How it was reached, in words; for an estimate, what the estimate rests on. */
  rule: string;
  /** True when the figure rests on an estimate rather than on vLLM's arithmetic alone. */
  estimate: boolean;
}

export function figure(bytes: number, predicts: string | null, rule: string, estimate: boolean): PlanFigure {
  return { bytes: Math.max(0, Math.round(bytes)), predicts, rule, estimate };
}

/**
 * The KV-cache memory a suggested max_model_len leaves free for the plan's own error, derived from that error
 * as measured against the published start-up logs (fixtures/vllm-logs.json; published-logs.test.ts holds it):
 * of 13 logs with "Available KV cache memory", the plan is within 0.26 GiB on 10 and under vLLM's figure by
 * 2.9 to 3.5 GiB on 3 (an under-estimate only shortens a suggestion). It is over vLLM's figure on two, both
 * small caches on an RTX 3090: by 0.20 GiB (5.2%) and 0.26 GiB (9.0%). The margin covers the worst of those
 * twice over in absolute terms, and the worst relative one rounded up: 10% of the figure, at least 0.5 GiB.
 */
export const KV_MARGIN = { share: 0.1, floorBytes: 0.5 * 1024 ** 3 } as const;

export function kvMemoryErrorMargin(availableKvBytes: number): number {
  return Math.max(KV_MARGIN.share * Math.max(0, availableKvBytes), KV_MARGIN.floorBytes);
}
