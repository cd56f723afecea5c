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
 * The error the plan states for its KV-cache memory, held to published vLLM start-up logs (the README's
 * accuracy table): within 15% or 1.5 GiB, whichever is more. A max_model_len the plan suggests leaves it free.
 */
export function kvMemoryErrorMargin(availableKvBytes: number): number {
  return Math.max(0.15 * Math.max(0, availableKvBytes), 1.5 * 1024 ** 3);
}
