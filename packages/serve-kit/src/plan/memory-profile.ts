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
 * The forward pass's largest per-token working set in a decoder layer: the residual and the hidden state,
 * plus the MLP's gate/up output and its activation (3 × the intermediate size, or the routed experts' share
 * for a mixture of experts), in the served type.
 */
export function forwardPassPeak(shape: ModelShape, tokens: number, tp: number, elementBytes: number): number {
  const mlp = shape.moe
    ? (shape.moe.activeExperts + shape.moe.sharedExperts) * shape.moe.expertIntermediateSize
    : shape.intermediateSize;
  return tokens * (2 * shape.hiddenSize + (3 * mlp) / tp) * elementBytes;
}

/**
 * Bytes per logit the dummy sampler run holds at once: the logits in the served type (2) and in float32 (4),
 * apply_top_k_top_p's sorted values (4) and int64 indices (8), the softmax (4) and cumulative sum (4) of the
 * sorted probabilities, the top-p mask (1), the logits scattered back (4), then random_sample's
 * probabilities (4) and exponential noise (4). llm-d's vLLM 0.11 logs on an H100 measure 38.4 to 38.9
 * bytes (torch peak ÷ (1024 requests × vocabulary) for Qwen3-0.6B, Llama-3.1-8B, gpt-oss-20b).
 */
export const SAMPLER_BYTES_PER_LOGIT = 2 + 4 + 4 + 8 + 4 + 4 + 1 + 4 + 4 + 4;

/** The sampler's dummy run: logits over the whole vocabulary (gathered on every rank) for each request. */
export function samplerPeak(shape: ModelShape, requests: number): number {
  return requests * shape.vocabSize * SAMPLER_BYTES_PER_LOGIT;
}

/**
 * vLLM's profile run (GPUModelRunner.profile_run) runs a forward pass of max_num_batched_tokens tokens
 * (_dummy_run), then the sampler on min(max_num_seqs, tokens) requests (_dummy_sampler_run); the forward
 * pass's intermediates are freed before the sampler runs, so torch's peak is the larger of the two, not
 * their sum. For dense models up to 32B on an 8192-token, 1024-request profile the sampler is the larger
 * (Qwen3-32B: 5.65 GiB against 1.3 GiB for the forward pass; vLLM logged 5.64).
 */
export function activationPeak(
  shape: ModelShape,
  tokens: number,
  maxNumSeqs: number,
  tp: number,
  elementBytes: number,
): PlanFigure {
  const requests = Math.min(maxNumSeqs, tokens);
  const forward = forwardPassPeak(shape, tokens, tp, elementBytes);
  const sampler = samplerPeak(shape, requests);
  const gib = (bytes: number) => `${(bytes / GIB).toFixed(2)} GiB`;
  return figure(
    Math.max(forward, sampler),
    "Memory profiling: torch peak increase (part of 'Available KV cache memory')",
    `the larger of the forward pass (${tokens} tokens × (2 × hidden + 3 × MLP width${tp > 1 ? ` / ${tp}` : ""}) in the served type: ${gib(forward)}) and the sampler (${requests} requests × ${shape.vocabSize} logits × ${SAMPLER_BYTES_PER_LOGIT} bytes: ${gib(sampler)})`,
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

/** What the profile needs: the model, the GPU, and the settings vLLM resolved. */
export interface ProfileInput {
  shape: ModelShape;
  /** The weights on each GPU, LoRA slots included. */
  weights: PlanFigure;
  /** The GPU's memory as nvidia-smi reports it. */
  memoryBytes: number;
  tensorParallelSize: number;
  gpuMemoryUtilization: number;
  maxNumBatchedTokens: number;
  maxNumSeqs: number;
  /** Bytes of the served type. */
  elementBytes: number;
}

/** The start-up profile's figures, in the order vLLM logs them. */
export interface MemoryProfile {
  cudaVisibleMemory: PlanFigure;
  requestedMemory: PlanFigure;
  activationPeak: PlanFigure;
  nonTorchMemory: PlanFigure;
  /** Negative means vLLM stops: no memory for the cache blocks. */
  availableKvMemory: PlanFigure & { signedBytes: number };
}

/**
 * Worker.determine_available_memory, step by step: the memory CUDA sees, the share vLLM may use, what the
 * profile run measures above the weights, and what is left for the KV cache.
 */
export function memoryProfile(input: ProfileInput): MemoryProfile {
  const visible = cudaVisibleMemory(input.memoryBytes);
  const requested = requestedMemory(visible, input.gpuMemoryUtilization);
  const activation = activationPeak(
    input.shape,
    input.maxNumBatchedTokens,
    input.maxNumSeqs,
    input.tensorParallelSize,
    input.elementBytes,
  );
  const nonTorch = nonTorchMemory(input.tensorParallelSize);
  return {
    cudaVisibleMemory: visible,
    requestedMemory: requested,
    activationPeak: activation,
    nonTorchMemory: nonTorch,
    availableKvMemory: availableKvMemory(requested, input.weights, activation, nonTorch),
  };
}

function availableKvMemory(
  requested: PlanFigure,
  weights: PlanFigure,
  activation: PlanFigure,
  nonTorch: PlanFigure,
): MemoryProfile["availableKvMemory"] {
  const signed = requested.bytes - weights.bytes - activation.bytes - nonTorch.bytes;
  return {
    ...figure(
      signed,
      "Available KV cache memory: X GiB",
      "requested memory − weights − activation peak − non-torch memory (Worker.determine_available_memory)",
      true,
    ),
    signedBytes: signed,
  };
}
