import type { CheckedPlanSettings } from "./settings.js";
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
  for (const check of [tensorParallelDividesHeads, maxModelLenWithinModel, quantizationMatches, dtypeRuns]) {
    const found = check(facts);
    if (found?.refusal) refusals.push(found.refusal);
    if (found?.note) notes.push(found.note);
  }
  return { refusals, notes };
}

type Found = { refusal?: Refusal; note?: string } | null;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** vLLM's hf_text_config: the nested text model's config for a multimodal model, else the config itself. */
function textConfig(config: Record<string, unknown>): Record<string, unknown> {
  return isRecord(config.text_config) ? config.text_config : config;
}

/** The text model's num_attention_heads, as vLLM reads it for tensor parallelism; null when absent or not a count. */
export function attentionHeadsOf(config: Record<string, unknown>): number | null {
  const heads = textConfig(config).num_attention_heads;
  return typeof heads === "number" && Number.isInteger(heads) && heads >= 1 ? heads : null;
}

/** ModelConfig.verify_with_parallel_config: the attention heads must divide by the tensor-parallel size. */
function tensorParallelDividesHeads({ config, tensorParallelSize: tp }: StartupFacts): Found {
  const heads = attentionHeadsOf(config);
  if (heads === null || heads % tp === 0) return null;
  const divisors = Array.from({ length: Math.min(heads, 64) }, (_, i) => i + 1).filter(
    (n) => heads % n === 0,
  );
  const below = divisors.filter((n) => n < tp).at(-1) ?? 1;
  return {
    refusal: {
      reason: `the model's ${heads} attention heads do not divide by tensor_parallel_size ${tp} (ModelConfig.verify_with_parallel_config); use one that divides them: ${divisors.join(", ")}`,
      flags: ["--tensor-parallel-size", String(below)],
    },
  };
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

/**
 * CudaPlatform.check_if_supports_dtype: bfloat16 needs compute capability 8.0. With `auto`, vLLM falls back to
 * float16 on such a GPU instead (_resolve_auto_dtype), which takes the same memory.
 */
function dtypeRuns({ config, settings, gpu }: StartupFacts): Found {
  const checkpoint = config.torch_dtype ?? config.dtype ?? textConfig(config).torch_dtype;
  const auto = settings.dtype === undefined || settings.dtype === "auto";
  const wantsBfloat16 = settings.dtype === "bfloat16" || (auto && checkpoint === "bfloat16");
  if (!wantsBfloat16) return null;
  const name = gpu.name ?? "GPU";
  if (gpu.computeCapability === null)
    return auto
      ? null
      : {
          note: "the GPU's compute capability is unknown (give --gpu NAME): whether it runs bfloat16 (8.0 or more) is not checked",
        };
  if (gpu.computeCapability >= 8) return null;
  if (auto)
    return {
      note: `the ${name} (compute capability ${gpu.computeCapability.toFixed(1)}) has no bfloat16: vLLM serves this bfloat16 checkpoint in float16`,
    };
  return {
    refusal: {
      reason: `--dtype bfloat16 needs a GPU of compute capability 8.0 or more, and the ${name} has ${gpu.computeCapability.toFixed(1)} (CudaPlatform.check_if_supports_dtype)`,
      flags: ["--dtype", "float16"],
    },
  };
}
