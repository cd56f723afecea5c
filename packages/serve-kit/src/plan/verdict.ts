/** What the plan concludes, with the flags that would make it fit. */
export type PlanVerdict =
  | { kind: "fits"; summary: string; flags: string[] }
  | { kind: "fits-with-max-model-len"; summary: string; flags: string[]; maxModelLen: number }
  | {
      kind: "needs-tensor-parallel";
      summary: string;
      flags: string[];
      tensorParallelSize: number;
      /** Set when the GPUs given hold the model only with a shorter context too. */
      maxModelLen?: number;
    }
  | { kind: "refused"; summary: string; flags: string[]; reasons: string[] }
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
  /** The largest max_model_len that fits in the KV memory less the plan's error margin (0: none), or null. */
  suggestedMaxModelLen: number | null;
  /** The KV memory the suggestion leaves free for the plan's own error. */
  marginBytes: number;
  maxModelLen: number;
}

/** A start-up check vLLM would fail: why, in words citing vLLM's code, and the flags that fix it. */
export interface Refusal {
  reason: string;
  flags: string[];
}

export interface VerdictInput {
  /** vLLM's start-up checks the settings fail: any one stops vLLM, whatever the memory. */
  refusals: readonly Refusal[];
  current: FitTry;
  /** Larger tensor-parallel sizes vLLM would take for this model, smallest first. */
  larger: readonly FitTry[];
  /** The GPUs available. */
  gpus: number;
}

const fullyFits = (t: FitTry) =>
  t.availableKvBytes > 0 && t.bytesPerFullRequest !== null && t.bytesPerFullRequest <= t.availableKvBytes;
const shorterFits = (t: FitTry) => t.availableKvBytes > 0 && (t.suggestedMaxModelLen ?? 0) > 0;
const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(2)} GiB`;

/**
 * The one place the plan's verdict is decided. In order: a start-up check vLLM fails; fits; fits with a
 * shorter max_model_len (the suggestion leaves the plan's error margin free); a larger tensor-parallel size on
 * the GPUs given, with the full context or a shorter one; one that needs more GPUs than given; does not fit.
 * An architecture whose KV cache the plan cannot lay out fits or not by its weights alone, and says so.
 */
export function decideVerdict({ refusals, current, larger, gpus }: VerdictInput): PlanVerdict {
  if (refusals.length > 0) return refusedVerdict(refusals);
  if (fullyFits(current))
    return { kind: "fits", summary: `fits: ${current.maxModelLen} tokens per request`, flags: [] };
  if (current.bytesPerFullRequest === null) return weightsOnlyVerdict(current, larger, gpus);
  return sizedVerdict(current, larger, gpus);
}

function refusedVerdict(refusals: readonly Refusal[]): PlanVerdict {
  const reasons = refusals.map((refusal) => refusal.reason);
  return {
    kind: "refused",
    summary: `vLLM would refuse to start: ${reasons.join("; ")}`,
    flags: refusals[0]?.flags ?? [],
    reasons,
  };
}

const needsText = (t: FitTry, gpus: number) =>
  `needs tensor_parallel_size >= ${t.tensorParallelSize}${t.tensorParallelSize > gpus ? ` (${t.tensorParallelSize} GPUs; ${gpus} given)` : ""}`;

const parallel = (t: FitTry, summary: string): PlanVerdict => ({
  kind: "needs-tensor-parallel",
  summary,
  flags: ["--tensor-parallel-size", String(t.tensorParallelSize)],
  tensorParallelSize: t.tensorParallelSize,
});

/** An architecture whose KV cache the plan cannot lay out: the weights alone decide, and it says so. */
function weightsOnlyVerdict(current: FitTry, larger: readonly FitTry[], gpus: number): PlanVerdict {
  if (current.availableKvBytes > 0)
    return {
      kind: "unknown",
      summary:
        "the weights fit; the KV cache could not be sized for this architecture, so whether a request fits is unknown",
      flags: [],
    };
  // Larger sizes come smallest first, so the GPUs given are tried before more.
  const weightsFit = larger.find((t) => t.availableKvBytes > 0);
  if (weightsFit)
    return parallel(
      weightsFit,
      `the weights fit only with ${needsText(weightsFit, gpus).replace("needs ", "")}; whether the KV cache then holds a request is unknown for this architecture`,
    );
  return doesNotFit([current, ...larger]);
}

/** A model whose KV cache the plan lays out: the full context, a shorter one, or more GPUs. */
function sizedVerdict(current: FitTry, larger: readonly FitTry[], gpus: number): PlanVerdict {
  const onGpusGiven = larger.filter((t) => t.tensorParallelSize <= gpus);
  const fullOnGpusGiven = onGpusGiven.find(fullyFits);
  const full = fullOnGpusGiven ?? larger.filter((t) => t.tensorParallelSize > gpus).find(fullyFits);
  const orFull = full ? `; or ${needsText(full, gpus)} for the full ${current.maxModelLen}` : "";
  if (shorterFits(current)) {
    const shorter = current.suggestedMaxModelLen as number;
    return {
      kind: "fits-with-max-model-len",
      summary: `fits only with max_model_len <= ${shorter} (${marginText(current)})${orFull}`,
      flags: ["--max-model-len", String(shorter)],
      maxModelLen: shorter,
    };
  }
  if (fullOnGpusGiven) return parallel(fullOnGpusGiven, needsText(fullOnGpusGiven, gpus));
  const shorterOnGpusGiven = onGpusGiven.find(shorterFits);
  if (shorterOnGpusGiven) {
    const shorter = shorterOnGpusGiven.suggestedMaxModelLen as number;
    const n = shorterOnGpusGiven.tensorParallelSize;
    return {
      kind: "needs-tensor-parallel",
      summary: `fits on the ${gpus} GPUs given with tensor_parallel_size ${n} and max_model_len <= ${shorter} (${marginText(shorterOnGpusGiven)})${orFull}`,
      flags: ["--tensor-parallel-size", String(n), "--max-model-len", String(shorter)],
      tensorParallelSize: n,
      maxModelLen: shorter,
    };
  }
  if (full) return parallel(full, needsText(full, gpus));
  return doesNotFit([current, ...larger]);
}

function marginText(t: FitTry): string {
  return `vLLM's own estimate is ${t.largestFittingModelLen}; this leaves ${gib(t.marginBytes)} of KV cache memory for the plan's error`;
}

function doesNotFit(tries: readonly FitTry[]): PlanVerdict {
  const most = Math.max(...tries.map((t) => t.tensorParallelSize));
  return {
    kind: "does-not-fit",
    summary: `does not fit: the weights and the start-up profile leave too little memory for the KV cache (less than the plan's error margin), even at tensor_parallel_size ${most}`,
    flags: [],
  };
}
