import type { LayerAttention, ModelShape } from "./model-config.js";
import { BLOCK_SIZE, cdiv } from "./vllm-commit.js";

// One layer's KV cache as vLLM's kv_cache_interface.py describes it: FullAttentionSpec, SlidingWindowSpec,
// MLAAttentionSpec. A page holds --block-size tokens of one layer.

export interface LayerKvSpec {
  kind: LayerAttention | "mla";
  /** Tokens in a page. */
  blockSize: number;
  /** Bytes of one page of one layer. */
  pageBytes: number;
  slidingWindow: number | null;
}

/** What a request can hold at most, which vLLM's max_memory_usage_bytes reads. */
export interface RequestLimits {
  maxModelLen: number;
  maxNumBatchedTokens: number;
}

/** `auto` stores the KV cache in the model's type; `fp8*` (fp8, fp8_e4m3, fp8_e5m2) in one byte. */
export function kvCacheDtypeBytes(kvCacheDtype: string, modelDtypeBytes: number): number {
  if (kvCacheDtype === "auto") return modelDtypeBytes;
  if (kvCacheDtype.startsWith("fp8")) return 1;
  if (kvCacheDtype === "bfloat16" || kvCacheDtype === "float16" || kvCacheDtype === "half") return 2;
  return modelDtypeBytes;
}

/**
 * Each layer's spec on one GPU. K and V heads split across tensor-parallel ranks (a rank keeps at least one:
 * vLLM replicates them when there are fewer heads than ranks); MLA's latent is one head, never split.
 */
export function layerKvSpecs(
  shape: ModelShape,
  tensorParallelSize: number,
  elementBytes: number,
  blockSize: number = BLOCK_SIZE,
): LayerKvSpec[] {
  if (shape.mla) {
    const latent = shape.mla.kvLoraRank + shape.mla.qkRopeHeadDim;
    const pageBytes = blockSize * latent * elementBytes;
    return shape.layerAttention.map(() => ({
      kind: "mla",
      blockSize,
      pageBytes,
      slidingWindow: null,
    }));
  }
  const headsPerGpu = Math.max(1, Math.floor(shape.kvHeads / tensorParallelSize));
  const pageBytes = 2 * blockSize * headsPerGpu * shape.headSize * elementBytes;
  return shape.layerAttention.map((kind) => ({
    kind,
    blockSize,
    pageBytes,
    slidingWindow: kind === "sliding" ? shape.slidingWindow : null,
  }));
}

/**
 * The most one request can hold in one layer: every token up to max_model_len for full attention and MLA;
 * for a sliding window, the window less one plus one scheduled batch of tokens, and one page more because
 * the window need not start at a page's edge.
 */
export function maxMemoryUsageBytes(spec: LayerKvSpec, limits: RequestLimits): number {
  if (spec.kind === "sliding" && spec.slidingWindow !== null) {
    const tokens = Math.min(spec.slidingWindow - 1 + limits.maxNumBatchedTokens, limits.maxModelLen);
    return (cdiv(tokens, spec.blockSize) + 1) * spec.pageBytes;
  }
  return cdiv(limits.maxModelLen, spec.blockSize) * spec.pageBytes;
}

/** Bytes a token takes in the KV cache of one GPU, summed over its layers (for full attention). */
export function kvBytesPerToken(specs: readonly LayerKvSpec[]): number {
  return specs.reduce((sum, spec) => sum + spec.pageBytes / spec.blockSize, 0);
}
