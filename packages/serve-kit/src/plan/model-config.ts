import { checkObject, refuse } from "../internal/validate.js";
import { type ArchitectureFamily, type ExpertFields, familyOf } from "./architectures.js";

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

export { KNOWN_ARCHITECTURES } from "./architectures.js";

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
  const family = familyOf(architecture);
  if (!family) return { unknownArchitecture: architecture };
  const text = languageModelConfig(config, family);
  const layers = text.count("num_hidden_layers");
  const slidingWindow = slidingWindowOf(text, family);
  return {
    shape: {
      architecture,
      modelType: typeof text.fields.model_type === "string" ? text.fields.model_type : "",
      layers,
      hiddenSize: text.count("hidden_size"),
      intermediateSize: text.count("intermediate_size"),
      vocabSize: text.count("vocab_size"),
      ...attentionHeadsOf(text),
      mla: family.mla ? mlaOf(text) : null,
      slidingWindow,
      layerAttention: layerAttentionOf(text, family, layers, slidingWindow),
      tiedEmbeddings: (text.fields.tie_word_embeddings ?? config.tie_word_embeddings) === true,
      derivedMaxModelLen: derivedMaxModelLen(text),
      moe: family.experts ? moeOf(text, family.experts) : null,
      quantization: quantizationOf(config.quantization_config ?? text.fields.quantization_config),
      checkpointDtype: dtypeOf(config, text.fields),
    },
  };
}

/** The language model's fields (a multimodal config's text_config, or the config itself), read by key. */
interface TextFields {
  fields: Record<string, unknown>;
  /** The prefix of a field's name in messages: "config.json" or "config.json text_config". */
  where: string;
  count: (key: string) => number;
  optionalCount: (key: string) => number | undefined;
}

function languageModelConfig(config: Record<string, unknown>, family: ArchitectureFamily): TextFields {
  const nested = family.textConfig === undefined ? undefined : config[family.textConfig];
  // Some families' older configs (Qwen2-VL) keep the language model's fields at the top.
  const fields = nested === undefined ? config : checkObject(nested, `config.json ${family.textConfig}`);
  const where = fields === config ? "config.json" : `config.json ${family.textConfig}`;
  const count = (key: string) => positiveInteger(fields[key], `${where} ${key}`);
  return {
    fields,
    where,
    count,
    optionalCount: (key: string) => (fields[key] == null ? undefined : count(key)),
  };
}

function attentionHeadsOf(text: TextFields): Pick<ModelShape, "attentionHeads" | "kvHeads" | "headSize"> {
  const attentionHeads = text.count("num_attention_heads");
  const kvHeads = text.optionalCount("num_key_value_heads") ?? attentionHeads;
  const headSize = text.optionalCount("head_dim") ?? text.count("hidden_size") / attentionHeads;
  if (!Number.isInteger(headSize)) {
    refuse(
      `${text.where} head_dim`,
      "is needed: hidden_size is not a multiple of num_attention_heads",
      text.fields.head_dim,
    );
  }
  return { attentionHeads, kvHeads, headSize };
}

/** DeepSeek V2/V3 without kv_lora_rank (V2-Lite-style configs always carry it) attend as usual. */
function mlaOf(text: TextFields): ModelShape["mla"] {
  if (text.fields.kv_lora_rank == null) return null;
  return { kvLoraRank: text.count("kv_lora_rank"), qkRopeHeadDim: text.count("qk_rope_head_dim") };
}

/** Bytes of one element of the checkpoint's type. */
export function dtypeBytes(dtype: ModelShape["checkpointDtype"]): number {
  return DTYPES[dtype];
}

function positiveInteger(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    refuse(field, "must be an integer of at least 1", value);
  }
  return value;
}

function slidingWindowOf(text: TextFields, family: ArchitectureFamily): number | null {
  if (text.fields.sliding_window == null) return null;
  if (family.sliding === "opt-in" && text.fields.use_sliding_window !== true) return null;
  return text.count("sliding_window");
}

const layers = (count: number, kind: (index: number) => LayerAttention) =>
  Array.from({ length: count }, (_, index) => kind(index));

function layerAttentionOf(
  text: TextFields,
  family: ArchitectureFamily,
  count: number,
  window: number | null,
): LayerAttention[] {
  const types = text.fields.layer_types;
  if (Array.isArray(types)) {
    if (types.length !== count) {
      refuse(`${text.where} layer_types`, `must list one entry per layer (${count})`, types);
    }
    return types.map((type) => (type === "sliding_attention" && window !== null ? "sliding" : "full"));
  }
  if (window === null) return layers(count, () => "full");
  switch (family.sliding) {
    case "even-layers":
      return layers(count, (index) => (index % 2 === 0 ? "sliding" : "full"));
    case "pattern": {
      // vLLM's Gemma 3: layer i slides unless (i + 1) is a multiple of sliding_window_pattern.
      const pattern = text.count("sliding_window_pattern");
      return layers(count, (index) => ((index + 1) % pattern === 0 ? "full" : "sliding"));
    }
    case "none":
      return layers(count, () => "full");
    default:
      return layers(count, () => "sliding");
  }
}

// vLLM's _get_and_verify_max_len: max_position_embeddings, times the rope scaling factor for kinds that
// extend the context (yarn counts from original_max_position_embeddings); llama3 and longrope do not.
function derivedMaxModelLen(text: TextFields): number {
  const base = text.count("max_position_embeddings");
  const scaling = text.fields.rope_scaling;
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

function moeOf(text: TextFields, fields: ExpertFields): ModelShape["moe"] {
  return {
    experts: text.count(fields.count),
    activeExperts: text.count("num_experts_per_tok"),
    expertIntermediateSize: text.count(fields.width),
    sharedExperts: fields.shared ? (text.optionalCount(fields.shared) ?? 0) : 0,
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

/** The checkpoint's type: torch_dtype (or dtype), at the top or in the language model's config. */
function dtypeOf(
  config: Record<string, unknown>,
  text: Record<string, unknown>,
): ModelShape["checkpointDtype"] {
  const dtype = config.torch_dtype ?? config.dtype ?? text.torch_dtype ?? text.dtype ?? "float32";
  if (typeof dtype !== "string" || !(dtype in DTYPES)) {
    refuse("config.json torch_dtype", "must be float16, bfloat16 or float32", dtype);
  }
  return dtype as ModelShape["checkpointDtype"];
}
