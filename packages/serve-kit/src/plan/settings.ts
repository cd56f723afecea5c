import { checkKnownKeys, checkObject, checkPositiveInteger, optional, refuse } from "../internal/validate.js";
import { ENGINE_OPTIONS, type VllmDtype } from "../options/engine-options.js";

/** The vLLM settings the plan reads; each defaults as vLLM's does. */
export interface PlanSettings {
  /** Share of each GPU's memory vLLM may use (vLLM: 0.9). */
  gpuMemoryUtilization?: number;
  /** Longest context; by default the one vLLM derives from config.json. */
  maxModelLen?: number;
  /** GPUs the model is split across (vLLM: 1). */
  tensorParallelSize?: number;
  /** `auto` (the model's type) or an fp8 kind (`fp8`, `fp8_e4m3`, `fp8_e5m2`). */
  kvCacheDtype?: string;
  dtype?: VllmDtype;
  /** --quantization for a checkpoint that is not quantized (fp8, bitsandbytes); a quantized one says its own. */
  quantization?: string;
  /** By default vLLM's for the GPU (256, or 1024 on GPUs of 70 GiB or more other than A100s). */
  maxNumSeqs?: number;
  /** Tokens in one scheduled batch; by default vLLM's for the GPU (2048, or 8192 as above). */
  maxNumBatchedTokens?: number;
  /** LoRA serving: its presence turns LoRA on. */
  lora?: { maxLoras?: number; maxLoraRank?: number; maxCpuLoras?: number };
  /** --enforce-eager: no CUDA graphs. */
  enforceEager?: boolean;
}

const KNOWN = [
  "gpuMemoryUtilization",
  "maxModelLen",
  "tensorParallelSize",
  "kvCacheDtype",
  "dtype",
  "quantization",
  "maxNumSeqs",
  "maxNumBatchedTokens",
  "lora",
  "enforceEager",
];

export const KV_CACHE_DTYPES = ["auto", "fp8", "fp8_e4m3", "fp8_e5m2", "bfloat16", "float16"] as const;

/** Checks the settings from plain JavaScript; the engine options use the engine-option table's own rules. */
export function checkPlanSettings(raw: unknown): PlanSettings {
  const input = checkObject(raw ?? {}, "settings");
  checkKnownKeys(input, KNOWN, "the plan's settings");
  const engine = (key: keyof typeof ENGINE_OPTIONS) =>
    input[key] === undefined ? undefined : ENGINE_OPTIONS[key].check(input[key], key);
  const kvCacheDtype = input.kvCacheDtype;
  if (kvCacheDtype !== undefined && !(KV_CACHE_DTYPES as readonly unknown[]).includes(kvCacheDtype)) {
    refuse("kvCacheDtype", `must be one of ${KV_CACHE_DTYPES.join(", ")}`, kvCacheDtype);
  }
  if (input.enforceEager !== undefined && typeof input.enforceEager !== "boolean") {
    refuse("enforceEager", "must be true or false", input.enforceEager);
  }
  return {
    gpuMemoryUtilization: engine("gpuMemoryUtilization") as number | undefined,
    maxModelLen: engine("maxModelLen") as number | undefined,
    tensorParallelSize: engine("tensorParallelSize") as number | undefined,
    kvCacheDtype: kvCacheDtype as string | undefined,
    dtype: engine("dtype") as VllmDtype | undefined,
    quantization: engine("quantization") as string | undefined,
    maxNumSeqs: engine("maxNumSeqs") as number | undefined,
    maxNumBatchedTokens: optional(input.maxNumBatchedTokens, checkPositiveInteger, "maxNumBatchedTokens"),
    lora: input.lora === undefined ? undefined : checkLora(input.lora),
    enforceEager: input.enforceEager as boolean | undefined,
  };
}

function checkLora(raw: unknown): NonNullable<PlanSettings["lora"]> {
  const lora = checkObject(raw, "lora");
  checkKnownKeys(lora, ["maxLoras", "maxLoraRank", "maxCpuLoras"], "lora");
  const maxLoras = optional(lora.maxLoras, ENGINE_OPTIONS.maxLoras.check, "lora.maxLoras");
  const maxCpuLoras = optional(lora.maxCpuLoras, checkPositiveInteger, "lora.maxCpuLoras");
  if (maxCpuLoras !== undefined && maxCpuLoras < (maxLoras ?? 1)) {
    refuse(
      "lora.maxCpuLoras",
      "must be at least maxLoras (vLLM keeps every GPU adapter in the CPU cache too)",
      maxCpuLoras,
    );
  }
  return {
    maxLoras,
    maxLoraRank: optional(lora.maxLoraRank, ENGINE_OPTIONS.maxLoraRank.check, "lora.maxLoraRank"),
    maxCpuLoras,
  };
}
