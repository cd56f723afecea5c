import { fixedVllmDefault } from "../options/engine-options.js";

// The vLLM source the plan's rules follow. The KV-cache rules (page sizes, grouping, blocks, concurrency,
// the largest max_model_len that fits) follow vllm/v1/kv_cache_interface.py and vllm/v1/core/kv_cache_utils.py
// at VLLM_PLAN_COMMIT; the memory left for the KV cache follows Worker.determine_available_memory in
// vllm/v1/worker/gpu_worker.py, read at 35d5cda123ec (the rule it states is unchanged at VLLM_PLAN_COMMIT:
// requested memory minus weights, the profiled activation peak and non-torch memory).

/** The vLLM commit whose KV-cache code the plan follows. */
export const VLLM_PLAN_COMMIT = "001cabc1be16a59a70d720ed61a13b678c060a18";

/** vLLM's default KV-cache page (tokens per block), from the engine-option table. */
export const BLOCK_SIZE = fixedVllmDefault("blockSize");

export const GIB = 1024 ** 3;
export const MIB = 1024 ** 2;

/** Integer division rounding up, as vLLM's `cdiv`. */
export function cdiv(a: number, b: number): number {
  return Math.ceil(a / b);
}
