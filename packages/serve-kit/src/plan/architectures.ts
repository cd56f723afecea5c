// One entry per architecture family: how its config.json names what the plan reads. A new family is one
// entry here (and a fixture and a test). Field names are Hugging Face's; each entry follows the family's
// model file in vLLM (vllm/model_executor/models/<family>.py) for which layers slide and what it loads.

/** Where sliding windows apply when config.json has no `layer_types` list (which, when present, rules). */
export type SlidingLayers =
  /** sliding_window applies to every layer (Mistral, Phi-3). */
  | "every-layer"
  /** Qwen 2/3 configs carry a window they do not use unless use_sliding_window is true. */
  | "opt-in"
  /** Gemma 2: even layers slide, odd layers attend fully. */
  | "even-layers"
  /** Gemma 3: every `sliding_window_pattern`-th layer attends fully, the others slide. */
  | "pattern"
  /** The family never slides. */
  | "none";

/** How a family's config names its mixture of experts. */
export interface ExpertFields {
  /** The key holding the number of routed experts. */
  count: "num_local_experts" | "n_routed_experts" | "num_experts";
  /** The key holding one expert's intermediate size. */
  width: "intermediate_size" | "moe_intermediate_size";
  /** The key holding the shared experts (DeepSeek), if the family has them. */
  shared?: "n_shared_experts";
}

export interface ArchitectureFamily {
  /** The classes config.json's `architectures[0]` names for this family. */
  architectures: readonly string[];
  /**
   * A multimodal config nests its language model under this key; vLLM serves the language model and
   * loads the vision tower beside it (the checkpoint's size counts both).
   */
  textConfig?: "text_config";
  sliding: SlidingLayers;
  experts?: ExpertFields;
  /** DeepSeek's multi-head latent attention: kv_lora_rank + qk_rope_head_dim per token per layer. */
  mla?: true;
}

/** The families whose KV cache the plan lays out as vLLM does; others get weights only, and say so. */
export const ARCHITECTURE_FAMILIES: readonly ArchitectureFamily[] = [
  { architectures: ["LlamaForCausalLM", "MistralForCausalLM"], sliding: "every-layer" },
  {
    architectures: ["MixtralForCausalLM"],
    sliding: "every-layer",
    experts: { count: "num_local_experts", width: "intermediate_size" },
  },
  { architectures: ["Qwen2ForCausalLM", "Qwen3ForCausalLM"], sliding: "opt-in" },
  {
    architectures: ["Qwen2MoeForCausalLM", "Qwen3MoeForCausalLM"],
    sliding: "opt-in",
    experts: { count: "num_experts", width: "moe_intermediate_size" },
  },
  { architectures: ["Gemma2ForCausalLM"], sliding: "even-layers" },
  { architectures: ["Gemma3ForCausalLM"], sliding: "pattern" },
  { architectures: ["Phi3ForCausalLM"], sliding: "every-layer" },
  {
    architectures: ["DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM"],
    sliding: "none",
    experts: { count: "n_routed_experts", width: "moe_intermediate_size", shared: "n_shared_experts" },
    mla: true,
  },
  // gpt-oss: layer_types alternates sliding (window 128) and full attention; its experts are mxfp4.
  {
    architectures: ["GptOssForCausalLM"],
    sliding: "none",
    experts: { count: "num_local_experts", width: "intermediate_size" },
  },
  // Multimodal models vLLM serves as text: the language model's fields sit under text_config.
  {
    architectures: [
      "Mistral3ForConditionalGeneration",
      "LlavaForConditionalGeneration",
      "LlavaNextForConditionalGeneration",
    ],
    textConfig: "text_config",
    sliding: "every-layer",
  },
  {
    architectures: ["Qwen2VLForConditionalGeneration", "Qwen2_5_VLForConditionalGeneration"],
    textConfig: "text_config",
    sliding: "opt-in",
  },
  { architectures: ["Gemma3ForConditionalGeneration"], textConfig: "text_config", sliding: "pattern" },
];

/** Every architecture the table names. */
export const KNOWN_ARCHITECTURES: readonly string[] = ARCHITECTURE_FAMILIES.flatMap(
  (family) => family.architectures,
);

/** The family of an architecture, or undefined when the plan does not know it. */
export function familyOf(architecture: string): ArchitectureFamily | undefined {
  return ARCHITECTURE_FAMILIES.find((family) => family.architectures.includes(architecture));
}
