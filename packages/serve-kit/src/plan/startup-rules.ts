import { quantizationOnGpu } from "./quantization-gpu.js";
import type { CheckedPlanSettings } from "./settings.js";
import { tensorParallelRefusal, textConfigOf as textConfig } from "./tensor-parallel.js";
import type { Refusal } from "./verdict.js";

// vLLM's start-up checks that refuse settings before any memory is measured, each from the vLLM code it
// follows (vllm/config/model.py at 0052a5b81898, vllm/platforms/cuda.py at 002db4951e0c): the plan refuses
// what vLLM refuses, naming the flag that fixes it. The config fields they need are read here as vLLM reads
// them, from the text model's config (`text_config` when a multimodal config nests it).

export interface StartupFacts {
  /** config.json, as checked by parseModelConfig. */
  config: Record<string, unknown>;
  /** The context vLLM derives from the config, or null when the plan does not know the architecture. */
  derivedMaxModelLen: number | null;
  settings: CheckedPlanSettings;
  tensorParallelSize: number;
  gpu: { name: string | null; computeCapability: number | null };
  /** VLLM_ALLOW_LONG_MAX_MODEL_LEN is set as vllm/envs.py reads it ("1" or "true"). */
  allowLongMaxModelLen: boolean;
}

export interface StartupCheck {
  refusals: Refusal[];
  notes: string[];
}

/** Methods that take their settings from the checkpoint: without a quantization_config vLLM cannot load them. */
const NEEDS_CHECKPOINT_CONFIG = new Set([
  "awq",
  "awq_marlin",
  "gptq",
  "gptq_marlin",
  "gptq_marlin_24",
  "gptq_bitblas",
  "marlin",
  "aqlm",
  "modelopt",
  "modelopt_fp4",
  "compressed-tensors",
]);

/** Flags a checkpoint's method also takes: vLLM's kernels that override it (`override_quantization_method`). */
const OVERRIDES: Record<string, readonly string[]> = {
  gptq: ["gptq_marlin", "gptq_marlin_24", "gptq_bitblas", "bitblas", "marlin", "moe_wna16", "ipex"],
  awq: ["awq_marlin", "marlin", "moe_wna16", "ipex"],
};

export function checkStartup(facts: StartupFacts): StartupCheck {
  const refusals: Refusal[] = [];
  const notes: string[] = [];
  const checks = [
    tensorParallelSplits,
    maxModelLenWithinModel,
    quantizationMatches,
    quantizationRuns,
    dtypeRuns,
  ];
  for (const check of checks) {
    const found = check(facts);
    if (found?.refusal) refusals.push(found.refusal);
    if (found?.note) notes.push(found.note);
  }
  return { refusals, notes };
}

type Found = { refusal?: Refusal; note?: string } | null;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** Every split tensor parallelism makes (tensor-parallel.ts): heads, KV heads, the MLP's widths, quantized groups. */
function tensorParallelSplits({ config, tensorParallelSize }: StartupFacts): Found {
  const refusal = tensorParallelRefusal(config, tensorParallelSize);
  return refusal ? { refusal } : null;
}

/** _get_and_verify_max_len: a max_model_len above the model's own is refused unless VLLM_ALLOW_LONG_MAX_MODEL_LEN is set. */
function maxModelLenWithinModel({ settings, derivedMaxModelLen, allowLongMaxModelLen }: StartupFacts): Found {
  const given = settings.maxModelLen;
  if (given === undefined || derivedMaxModelLen === null || given <= derivedMaxModelLen) return null;
  const over = `max_model_len ${given} is more than the model's ${derivedMaxModelLen} (its config.json's positions and rope scaling; _get_and_verify_max_len)`;
  if (allowLongMaxModelLen)
    return {
      note: `${over}: VLLM_ALLOW_LONG_MAX_MODEL_LEN is set, so vLLM only warns; positions past ${derivedMaxModelLen} may give NaNs or out-of-bounds errors`,
    };
  return {
    refusal: {
      reason: `${over}; lower it, or set VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 to start anyway`,
      flags: ["--max-model-len", String(derivedMaxModelLen)],
    },
  };
}

/** The checkpoint's method as ModelConfig._parse_quant_hf_config finds it (the text config's too), normalized. */
function checkpointQuantization(config: Record<string, unknown>): string | null {
  const quant = [config.quantization_config, textConfig(config).quantization_config].find(isRecord);
  const method = quant?.quant_method;
  if (typeof method !== "string" || method === "") return null;
  return method.toLowerCase().replace("compressed_tensors", "compressed-tensors");
}

/**
 * ModelConfig._verify_quantization: --quantization must be the checkpoint's method (or a kernel that overrides
 * it); on a checkpoint without one, a method that reads its settings from the checkpoint cannot load
 * (get_quant_config: "Cannot find the config file for ...").
 */
function quantizationMatches({ config, settings }: StartupFacts): Found {
  const flag = settings.quantization;
  if (flag === undefined) return null;
  const stored = checkpointQuantization(config);
  if (stored !== null) {
    if (flag === stored || OVERRIDES[stored]?.includes(flag)) return null;
    return {
      refusal: {
        reason: `--quantization ${flag} does not match the checkpoint's quantization_config (${stored}) (ModelConfig._verify_quantization); leave it out and vLLM reads ${stored} from the checkpoint`,
        flags: ["--quantization", stored],
      },
    };
  }
  if (!NEEDS_CHECKPOINT_CONFIG.has(flag)) return null;
  return {
    refusal: {
      reason: `--quantization ${flag} needs a checkpoint quantized with it, and config.json has no quantization_config (vLLM: "Cannot find the config file for ${flag}"); leave it out, or quantize while loading with fp8 or bitsandbytes`,
      flags: [],
    },
  };
}

/** The quantization method runs on this GPU (quantization-gpu.ts: each method's get_min_capability). */
function quantizationRuns({ config, settings, gpu }: StartupFacts): Found {
  return quantizationOnGpu(config, textConfig(config), settings.quantization, gpu);
}

export type ServedDtype = "float16" | "bfloat16" | "float32";

const DTYPE_NAMES: Record<string, ServedDtype> = {
  half: "float16",
  float16: "float16",
  bfloat16: "bfloat16",
  float: "float32",
  float32: "float32",
};

/** Model types vLLM will not run in float16 (_FLOAT16_NOT_SUPPORTED_MODELS: numerical instability). */
const NO_FLOAT16 = new Set(["gemma2", "gemma3", "gemma3_text", "plamo2", "glm4"]);

/** CudaPlatform.supported_dtypes: bfloat16 from compute capability 8.0, float16 from 6.0; unknown: a current GPU. */
function supportedDtypes(computeCapability: number | null): ServedDtype[] {
  if (computeCapability === null || computeCapability >= 8) return ["bfloat16", "float16", "float32"];
  return computeCapability >= 6 ? ["float16", "float32"] : ["float32"];
}

/** The checkpoint's type as vLLM's _find_dtype reads it from config.json (float32 when it names none). */
function checkpointDtype(config: Record<string, unknown>): ServedDtype {
  const named =
    config.torch_dtype ?? config.dtype ?? textConfig(config).torch_dtype ?? textConfig(config).dtype;
  return (typeof named === "string" && DTYPE_NAMES[named]) || "float32";
}

/**
 * The type vLLM serves in (_get_and_verify_dtype): the one given, or for `auto` (_resolve_auto_dtype) the
 * checkpoint's when the GPU runs it and the model allows it, else the first the GPU supports (a float32
 * checkpoint takes that one too).
 */
export function servedDtype(
  config: Record<string, unknown>,
  dtype: CheckedPlanSettings["dtype"],
  computeCapability: number | null,
): ServedDtype {
  if (dtype !== undefined && dtype !== "auto") return DTYPE_NAMES[dtype] ?? "float32";
  const modelType = String(config.model_type ?? "");
  const valid = supportedDtypes(computeCapability).filter(
    (type) => !(type === "float16" && NO_FLOAT16.has(modelType)),
  );
  const preferred = valid[0] ?? "float32";
  const stored = checkpointDtype(config);
  const wanted = stored === "float32" ? preferred : stored;
  return valid.includes(wanted) ? wanted : preferred;
}

/**
 * CudaPlatform.check_if_supports_dtype: bfloat16 needs compute capability 8.0; _check_valid_dtype: some model
 * types refuse float16. With `auto`, vLLM picks a type that runs instead (said in a note when it is not the
 * checkpoint's).
 */
function dtypeRuns({ config, settings, gpu }: StartupFacts): Found {
  const served = servedDtype(config, settings.dtype, gpu.computeCapability);
  const name = gpu.name ?? "GPU";
  const capability = gpu.computeCapability?.toFixed(1);
  const modelType = String(config.model_type ?? "");
  if (settings.dtype === undefined || settings.dtype === "auto") {
    const stored = checkpointDtype(config);
    if (stored === served || stored === "float32") return null;
    const why = supportedDtypes(gpu.computeCapability).includes(stored)
      ? `${modelType} models do not run in ${stored}`
      : `the ${name} (compute capability ${capability}) has no ${stored}`;
    return { note: `${why}: vLLM serves this ${stored} checkpoint in ${served}` };
  }
  if (served === "float16" && NO_FLOAT16.has(modelType))
    return {
      refusal: {
        reason: `${modelType} models do not run in float16 (numerical instability; _check_valid_dtype)`,
        flags: ["--dtype", supportedDtypes(gpu.computeCapability)[0] ?? "float32"],
      },
    };
  if (served !== "bfloat16") return null;
  if (gpu.computeCapability === null)
    return {
      note: "the GPU's compute capability is unknown (give --gpu NAME): whether it runs bfloat16 (8.0 or more) is not checked",
    };
  if (gpu.computeCapability >= 8) return null;
  return {
    refusal: {
      reason: `--dtype bfloat16 needs a GPU of compute capability 8.0 or more, and the ${name} has ${capability} (CudaPlatform.check_if_supports_dtype)`,
      flags: ["--dtype", "float16"],
    },
  };
}
