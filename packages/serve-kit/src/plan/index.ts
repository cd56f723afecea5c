export type { PlanFigure } from "./estimate.js";
export { findGpuModel, GPU_MODELS, type GpuModel } from "./gpus.js";
export type { LayerKvSpec } from "./kv-cache-spec.js";
export type { KvCacheGroup } from "./kv-capacity.js";
export type { LoraMemory } from "./lora.js";
export { KNOWN_ARCHITECTURES } from "./model-config.js";
export { type PlanModel, safetensorsHeaderBytes, safetensorsLmHeadBytes } from "./model-files.js";
export {
  type PlanEnvironment,
  type PlanGpu,
  type PlanKvCache,
  planServe,
  type ServePlan,
} from "./plan-serve.js";
export { KV_CACHE_DTYPES, type PlanSettings } from "./settings.js";
export type { PlanVerdict } from "./verdict.js";
export { VLLM_PLAN_COMMIT } from "./vllm-commit.js";
