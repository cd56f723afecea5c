import { figure, type PlanFigure } from "./estimate.js";
import type { ModelShape } from "./model-config.js";
import { GIB, MIB } from "./vllm-commit.js";

// The memory vLLM's start-up profile measures besides the weights (Worker.determine_available_memory):
// the activation peak of a dummy forward pass of max_num_batched_tokens tokens plus a sampler pass, and the
// memory allocated outside torch (CUDA context, NCCL). vLLM measures them; the plan can only estimate them,
// so each states its rule. CUDA graphs are captured after the KV cache is sized, in the memory left above
// gpu_memory_utilization, so they are checked against that headroom instead.

/** nvidia-smi's memory.total minus what CUDA reports as total: 24576 MiB -> 23.58 GiB on an RTX 3090 (vllm#10517). */
export const CUDA_RESERVED_ESTIMATE_BYTES = 430 * MIB;

export function cudaVisibleMemory(nvidiaSmiBytes: number): PlanFigure {
  return figure(
    nvidiaSmiBytes - CUDA_RESERVED_ESTIMATE_BYTES,
    "Free memory on device (F/T GiB): T",
    "the GPU's memory less about 430 MiB the driver keeps (an RTX 3090's 24576 MiB is 23.58 GiB to vLLM in vllm#10517)",
    true,
  );
}

/** What vLLM may use of the GPU: CUDA's total × gpu_memory_utilization. */
export function requestedMemory(visible: PlanFigure, utilization: number): PlanFigure {
  return figure(
    visible.bytes * utilization,
    null,
    `CUDA's total × gpu_memory_utilization (${utilization})`,
    true,
  );
}

/**
 * The largest per-token working set in a decoder layer: the residual and the hidden state, plus the MLP's
 * gate/up output and its activation (3 × the intermediate size, or the routed experts' share for a mixture
 * of experts), in the served type.
 */
function activationBytesPerToken(shape: ModelShape, tp: number, elementBytes: number): number {
  const mlp = shape.moe
    ? (shape.moe.activeExperts + shape.moe.sharedExperts) * shape.moe.expertIntermediateSize
    : shape.intermediateSize;
  return (2 * shape.hiddenSize + (3 * mlp) / tp) * elementBytes;
}

export function activationPeak(
  shape: ModelShape,
  tokens: number,
  maxNumSeqs: number,
  tp: number,
  elementBytes: number,
): PlanFigure {
  const forward = tokens * activationBytesPerToken(shape, tp, elementBytes);
  // The sampler's dummy run: float32 logits and probabilities for min(max_num_seqs, tokens) requests.
  const sampler = Math.min(maxNumSeqs, tokens) * shape.vocabSize * 4 * 2;
  return figure(
    forward + sampler,
    "Memory profiling: torch peak increase (part of 'Available KV cache memory')",
    `${tokens} profiled tokens × (2 × hidden + 3 × MLP width${tp > 1 ? ` / ${tp}` : ""}) in the served type, plus float32 logits and probabilities for ${Math.min(maxNumSeqs, tokens)} requests`,
    true,
  );
}

export function nonTorchMemory(tp: number): PlanFigure {
  const bytes = 0.35 * GIB + (tp > 1 ? 0.5 * GIB : 0);
  return figure(
    bytes,
    "Memory profiling: non-torch increase (part of 'Available KV cache memory')",
    `about 0.35 GiB of CUDA allocations outside torch (vllm#10517 logged non_torch_memory=0.35GiB)${tp > 1 ? ", plus about 0.5 GiB of NCCL buffers with tensor parallelism" : ""}`,
    true,
  );
}

export function cudaGraphMemory(enforceEager: boolean): PlanFigure {
  return figure(
    enforceEager ? 0 : 0.5 * GIB,
    "Graph capturing finished in S secs, took X GiB",
    enforceEager
      ? "--enforce-eager: no CUDA graphs"
      : "about 0.5 GiB (vLLM logs 0.2 to 1 GiB for one GPU); taken from the memory above gpu_memory_utilization, after the KV cache is sized",
    true,
  );
}
