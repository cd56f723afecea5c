import type { Refusal } from "./verdict.js";

// Each quantization method runs only from a compute capability: VllmConfig._get_quantization_config refuses a
// GPU below the method's get_min_capability() ("The quantization method X is not supported for the current
// GPU. Minimum capability: N. Current capability: M."). The figures are each method's get_min_capability at the
// vLLM the plan follows (v0.10/v0.11; later releases lowered fp8's to 7.5 with a Marlin FP8 kernel for Turing).
// Methods not listed (ipex, tpu_int8, neuron_quant, cpu_awq: not CUDA; the newest ones) are not checked.

/** get_min_capability() of each method, as a compute capability (80 -> 8.0). */
const MIN_CAPABILITY: Readonly<Record<string, number>> = {
  awq: 7.5,
  awq_marlin: 8.0,
  gptq: 6.0,
  gptq_marlin: 8.0,
  gptq_marlin_24: 8.0,
  gptq_bitblas: 7.0,
  bitblas: 7.0,
  marlin: 8.0,
  // Fp8Config: 8.0; below 8.9 (no FP8 in the GPU) Fp8LinearMethod keeps the weights in 8 bits and computes in
  // 16 (the Marlin kernel: weight-only).
  fp8: 8.0,
  fbgemm_fp8: 8.0,
  ptpc_fp8: 9.4,
  modelopt: 8.9,
  bitsandbytes: 7.0,
  experts_int8: 8.0,
  gguf: 6.0,
  moe_wna16: 7.0,
  mxfp4: 8.0,
  deepspeedfp: 8.0,
  qqq: 8.0,
  hqq: 8.0,
  aqlm: 6.0,
  torchao: 7.5,
  quark: 7.0,
  fp_quant: 10.0,
  "compressed-tensors": 7.0,
};

/** Where FP8 runs in the GPU itself (Ada, Hopper): Fp8LinearMethod's use_marlin is `not has_device_capability(89)`. */
const NATIVE_FP8 = 8.9;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * A compressed-tensors checkpoint runs its scheme's kernel, each with its own get_min_capability: FP8 weights
 * need 8.0 (CompressedTensorsW8A16Fp8, Marlin; W8A8Fp8 natively from 8.9), 4- and 8-bit integer weights alone
 * 8.0 (CompressedTensorsWNA16, Marlin), 8-bit integer weights and activations 7.5 (CompressedTensorsW8A8Int8).
 */
function compressedTensorsScheme(quant: Record<string, unknown>): { name: string; min: number } | null {
  // Each scheme's own check, CompressedTensorsConfig._check_scheme_supported, says so in its words.
  const groups = isRecord(quant.config_groups) ? Object.values(quant.config_groups).filter(isRecord) : [];
  for (const group of groups) {
    const weights = isRecord(group.weights) ? group.weights : {};
    const activations = isRecord(group.input_activations) ? group.input_activations : null;
    if (weights.type === "float" && weights.num_bits === 8)
      return { name: "FP8 (compressed-tensors)", min: 8.0 };
    if (weights.type === "int" && activations === null)
      return { name: "integer weights (compressed-tensors)", min: 8.0 };
    if (weights.type === "int" && weights.num_bits === 8)
      return { name: "INT8 (compressed-tensors)", min: 7.5 };
  }
  return null;
}

/** The method vLLM loads: --quantization, else the checkpoint's quantization_config. */
function methodOf(
  flag: string | undefined,
  quant: Record<string, unknown> | undefined,
): { name: string; flagged: boolean; min: number; fp8: boolean; vllmSays: string } | null {
  const stored = typeof quant?.quant_method === "string" ? quant.quant_method.toLowerCase() : undefined;
  const method = flag ?? stored?.replace("compressed_tensors", "compressed-tensors");
  if (method === undefined) return null;
  const scheme = method === "compressed-tensors" && quant ? compressedTensorsScheme(quant) : null;
  const min = scheme?.min ?? MIN_CAPABILITY[method];
  if (min === undefined) return null;
  const fp8 = method === "fp8" || method === "fbgemm_fp8" || (scheme?.name.startsWith("FP8") ?? false);
  const vllmSays = scheme
    ? "Quantization scheme is not supported for the current GPU"
    : `The quantization method ${method} is not supported for the current GPU`;
  return { name: scheme?.name ?? method, flagged: flag !== undefined, min, fp8, vllmSays };
}

/** What would run instead on this GPU, in words. */
function instead(flagged: boolean, capability: number): string {
  const runs = Object.entries(MIN_CAPABILITY)
    .filter(([name, min]) => min <= capability && ["awq", "gptq", "bitsandbytes", "fp8"].includes(name))
    .map(([name]) => name);
  const other = runs.length > 0 ? ` (here: ${runs.join(", ")})` : "";
  return flagged
    ? `leave --quantization out to serve the checkpoint as stored, or use a method this GPU runs${other}`
    : `serve a 16-bit checkpoint of the model, or one quantized with a method this GPU runs${other}`;
}

export interface QuantizationGpuCheck {
  refusal?: Refusal;
  note?: string;
}

/** VllmConfig._get_quantization_config's capability check, and FP8's weight-only fallback below 8.9. */
export function quantizationOnGpu(
  config: Record<string, unknown>,
  textConfig: Record<string, unknown>,
  flag: string | undefined,
  gpu: { name: string | null; computeCapability: number | null },
): QuantizationGpuCheck | null {
  const quant = [config.quantization_config, textConfig.quantization_config].find(isRecord);
  const method = methodOf(flag, quant);
  if (method === null) return null;
  const capability = gpu.computeCapability;
  const name = gpu.name ?? "GPU";
  if (capability === null)
    return {
      note: `the GPU's compute capability is unknown (give --gpu NAME): whether it runs ${method.name} (${method.min.toFixed(1)} or more) is not checked`,
    };
  if (capability < method.min)
    return {
      refusal: {
        reason: `${method.name} needs a GPU of compute capability ${method.min.toFixed(1)} or more, and the ${name} has ${capability.toFixed(1)} (get_min_capability; vLLM: "${method.vllmSays}"); ${instead(method.flagged, capability)}`,
        flags: [],
      },
    };
  if (method.fp8 && capability < NATIVE_FP8)
    return {
      note: `the ${name} (compute capability ${capability.toFixed(1)}) has no FP8 in hardware: vLLM keeps the weights in 8 bits and computes in 16 (the Marlin kernel, weight-only), slower on long prompts than on a GPU of 8.9 or more`,
    };
  return null;
}
