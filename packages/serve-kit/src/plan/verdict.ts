/** What the plan concludes, with the flags that would make it fit. */
export type PlanVerdict =
  | { kind: "fits"; summary: string; flags: string[] }
  | { kind: "fits-with-max-model-len"; summary: string; flags: string[]; maxModelLen: number }
  | { kind: "needs-tensor-parallel"; summary: string; flags: string[]; tensorParallelSize: number }
  | { kind: "does-not-fit"; summary: string; flags: string[] }
  | { kind: "unknown"; summary: string; flags: string[] };

/** The result of one try at a tensor-parallel size: what the verdict needs to know. */
export interface FitTry {
  tensorParallelSize: number;
  /** Memory left for the KV cache; negative when the weights and overheads alone exceed the share. */
  availableKvBytes: number;
  /** KV memory one request of max_model_len needs, or null when the architecture is unknown. */
  bytesPerFullRequest: number | null;
  /** vLLM's estimate of the largest max_model_len that fits, or null when unknown. */
  largestFittingModelLen: number | null;
  maxModelLen: number;
}

const fullyFits = (t: FitTry) =>
  t.availableKvBytes > 0 && t.bytesPerFullRequest !== null && t.bytesPerFullRequest <= t.availableKvBytes;

/**
 * fits; or fits with a shorter max_model_len (vLLM's own estimate); or needs more GPUs (the smallest
 * tensor-parallel size that fits the whole context); or does not fit on this GPU at all.
 */
export function decideVerdict(current: FitTry, larger: readonly FitTry[], gpus: number): PlanVerdict {
  if (fullyFits(current))
    return { kind: "fits", summary: `fits: ${current.maxModelLen} tokens per request`, flags: [] };
  const needs = larger.find(fullyFits);
  const needsText = (t: FitTry) =>
    `needs tensor_parallel_size >= ${t.tensorParallelSize}${t.tensorParallelSize > gpus ? ` (${t.tensorParallelSize} GPUs; ${gpus} given)` : ""}`;
  if (current.availableKvBytes > 0 && current.bytesPerFullRequest === null) {
    return {
      kind: "unknown",
      summary:
        "the weights fit; the KV cache could not be sized for this architecture, so whether a request fits is unknown",
      flags: [],
    };
  }
  const shorter = current.largestFittingModelLen ?? 0;
  if (current.availableKvBytes > 0 && shorter > 0) {
    const alternative = needs ? `; or ${needsText(needs)} for the full ${current.maxModelLen}` : "";
    return {
      kind: "fits-with-max-model-len",
      summary: `fits only with max_model_len <= ${shorter}${alternative}`,
      flags: ["--max-model-len", String(shorter)],
      maxModelLen: shorter,
    };
  }
  if (needs) {
    return {
      kind: "needs-tensor-parallel",
      summary: needsText(needs),
      flags: ["--tensor-parallel-size", String(needs.tensorParallelSize)],
      tensorParallelSize: needs.tensorParallelSize,
    };
  }
  return {
    kind: "does-not-fit",
    summary:
      "does not fit on this GPU: the weights and the start-up profile leave no memory for the KV cache, even split 8 ways",
    flags: [],
  };
}
