import { checkObject, refuse } from "../internal/validate.js";

// What the plan needs from a model's config.json, checked. Field names are Hugging Face's; a field the
// architecture needs and the file lacks is refused with the field's name, never guessed.

/** The attention a layer runs, as vLLM's KV-cache spec tells them apart. */
export type LayerAttention = "full" | "sliding";

export interface ModelShape {
  architecture: string;
  modelType: string;
  layers: number;
  hiddenSize: number;
  intermediateSize: number;
  vocabSize: number;
  attentionHeads: number;
  kvHeads: number;
  headSize: number;
  /** DeepSeek-V2-style multi-head latent attention: one latent per token per layer instead of K and V. */
  mla: { kvLoraRank: number; qkRopeHeadDim: number } | null;
  slidingWindow: number | null;
  /** One entry per layer: full attention, or the sliding window. */
  layerAttention: readonly LayerAttention[];
  tiedEmbeddings: boolean;
  /** The context vLLM derives from the config when --max-model-len is not given. */
  derivedMaxModelLen: number;
  moe: {
    experts: number;
    activeExperts: number;
    expertIntermediateSize: number;
    sharedExperts: number;
  } | null;
  quantization: { method: string; bits: number | null } | null;
  /** The checkpoint's type, from torch_dtype (or dtype). */
  checkpointDtype: "float16" | "bfloat16" | "float32";
}

/** Architectures whose KV cache the plan lays out as vLLM does; others get weights only, and say so. */
export const KNOWN_ARCHITECTURES = [
  "LlamaForCausalLM",
  "MistralForCausalLM",
  "MixtralForCausalLM",
  "Qwen2ForCausalLM",
  "Qwen2MoeForCausalLM",
  "Qwen3ForCausalLM",
  "Qwen3MoeForCausalLM",
  "Gemma2ForCausalLM",
  "Phi3ForCausalLM",
  "DeepseekV2ForCausalLM",
  "DeepseekV3ForCausalLM",
] as const;

const DTYPES = { float16: 2, bfloat16: 2, float32: 4 } as const;

/** Reads config.json. Returns the shape, or `{ unknown }` naming an architecture the plan cannot lay out. */
export function parseModelConfig(
  raw: unknown,
):
  | { shape: ModelShape; unknownArchitecture?: undefined }
  | { shape?: undefined; unknownArchitecture: string } {
  const config = checkObject(raw, "config.json");
  const architectures = config.architectures;
  if (!Array.isArray(architectures) || typeof architectures[0] !== "string") {
    refuse(
      "config.json architectures",
      'must be a list naming the model class, such as ["LlamaForCausalLM"]',
      architectures,
    );
  }
  const architecture = architectures[0] as string;
  if (!(KNOWN_ARCHITECTURES as readonly string[]).includes(architecture)) {
    return { unknownArchitecture: architecture };
  }
  const count = (key: string) => positiveInteger(config[key], key);
  const optionalCount = (key: string) => (config[key] == null ? undefined : count(key));
  const layers = count("num_hidden_layers");
  const hiddenSize = count("hidden_size");
  const attentionHeads = count("num_attention_heads");
  const kvHeads = optionalCount("num_key_value_heads") ?? attentionHeads;
  const headSize = optionalCount("head_dim") ?? hiddenSize / attentionHeads;
  if (!Number.isInteger(headSize)) {
    refuse(
      "config.json head_dim",
      "is needed: hidden_size is not a multiple of num_attention_heads",
      config.head_dim,
    );
  }
  const isMla = architecture.startsWith("Deepseek") && config.kv_lora_rank != null;
  const mla = isMla ? { kvLoraRank: count("kv_lora_rank"), qkRopeHeadDim: count("qk_rope_head_dim") } : null;
  const slidingWindow = slidingWindowOf(config, architecture);
  return {
    shape: {
      architecture,
      modelType: typeof config.model_type === "string" ? config.model_type : "",
      layers,
      hiddenSize,
      intermediateSize: count("intermediate_size"),
      vocabSize: count("vocab_size"),
      attentionHeads,
      kvHeads,
      headSize,
      mla,
      slidingWindow,
      layerAttention: layerAttentionOf(config, architecture, layers, slidingWindow),
      tiedEmbeddings: config.tie_word_embeddings === true,
      derivedMaxModelLen: derivedMaxModelLen(config),
      moe: moeOf(count, optionalCount),
      quantization: quantizationOf(config.quantization_config),
      checkpointDtype: dtypeOf(config),
    },
  };
}

/** Bytes of one element of the checkpoint's type. */
export function dtypeBytes(dtype: ModelShape["checkpointDtype"]): number {
  return DTYPES[dtype];
}

function positiveInteger(value: unknown, key: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    refuse(`config.json ${key}`, "must be an integer of at least 1", value);
  }
  return value;
}

function slidingWindowOf(config: Record<string, unknown>, architecture: string): number | null {
  const window = config.sliding_window;
  if (window == null) return null;
  // Qwen2 configs carry a window they do not use unless use_sliding_window is true.
  if (architecture.startsWith("Qwen") && config.use_sliding_window !== true) return null;
  return positiveInteger(window, "sliding_window");
}

function layerAttentionOf(
  config: Record<string, unknown>,
  architecture: string,
  layers: number,
  window: number | null,
): LayerAttention[] {
  const types = config.layer_types;
  if (Array.isArray(types)) {
    if (types.length !== layers) {
      refuse("config.json layer_types", `must list one entry per layer (${layers})`, types);
    }
    return types.map((type) => (type === "sliding_attention" && window !== null ? "sliding" : "full"));
  }
  if (window === null) return Array.from({ length: layers }, () => "full");
  // vLLM's Gemma 2 slides on even layers and attends fully on odd ones; Mistral slides everywhere.
  if (architecture === "Gemma2ForCausalLM") {
    return Array.from({ length: layers }, (_, index) => (index % 2 === 0 ? "sliding" : "full"));
  }
  return Array.from({ length: layers }, () => "sliding");
}

// vLLM's _get_and_verify_max_len: max_position_embeddings, times the rope scaling factor for kinds that
// extend the context (yarn counts from original_max_position_embeddings); llama3 and longrope do not.
function derivedMaxModelLen(config: Record<string, unknown>): number {
  const base = positiveInteger(config.max_position_embeddings, "max_position_embeddings");
  const scaling = config.rope_scaling;
  if (scaling === null || typeof scaling !== "object") return base;
  const {
    factor,
    type,
    rope_type: ropeType,
    original_max_position_embeddings: original,
  } = scaling as Record<string, unknown>;
  const kind = (ropeType ?? type) as unknown;
  if (typeof factor !== "number" || ["su", "longrope", "llama3"].includes(String(kind))) return base;
  const start = kind === "yarn" && typeof original === "number" ? original : base;
  return Math.floor(start * factor);
}

function moeOf(
  count: (key: string) => number,
  optionalCount: (key: string) => number | undefined,
): ModelShape["moe"] {
  const experts =
    optionalCount("num_local_experts") ?? optionalCount("n_routed_experts") ?? optionalCount("num_experts");
  if (experts === undefined) return null;
  return {
    experts,
    activeExperts: count("num_experts_per_tok"),
    expertIntermediateSize: optionalCount("moe_intermediate_size") ?? count("intermediate_size"),
    sharedExperts: optionalCount("n_shared_experts") ?? 0,
  };
}

function quantizationOf(raw: unknown): ModelShape["quantization"] {
  if (raw == null) return null;
  const quant = checkObject(raw, "config.json quantization_config");
  const method = quant.quant_method;
  if (typeof method !== "string" || method === "") {
    refuse(
      "config.json quantization_config.quant_method",
      "must name the method, such as awq or gptq",
      method,
    );
  }
  return { method, bits: typeof quant.bits === "number" ? quant.bits : null };
}

function dtypeOf(config: Record<string, unknown>): ModelShape["checkpointDtype"] {
  const dtype = config.torch_dtype ?? config.dtype ?? "float32";
  if (typeof dtype !== "string" || !(dtype in DTYPES)) {
    refuse("config.json torch_dtype", "must be float16, bfloat16 or float32", dtype);
  }
  return dtype as ModelShape["checkpointDtype"];
}
