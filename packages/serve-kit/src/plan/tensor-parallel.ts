import type { Refusal } from "./verdict.js";

// Every split tensor parallelism makes, as vLLM makes it: a size that fails one does not start. Read from the
// text model's config.json (`text_config` when a multimodal config nests it), so they hold for architectures
// the plan cannot lay out too. Each cites the vLLM code that refuses it:
// - attention heads: ModelConfig.verify_with_parallel_config (num_attention_heads % tp);
// - KV heads: QKVParallelLinear (linear.py) divides them by the size, or, when the size is at least their
//   number, replicates them: the size must then divide by them (`divide` asserts either way);
// - the MLP width: MergedColumnParallelLinear (gate/up) and RowParallelLinear (down) `divide` intermediate_size;
//   a mixture of experts' FusedMoE asserts moe_intermediate_size % tp == 0, and a shared expert is an MLP;
// - a group-quantized checkpoint (AWQ, GPTQ): each row-parallel layer's input share must hold whole groups
//   ("The input size is not aligned with the quantized weight shape. This can be caused by too large tensor
//   parallel size.").
// Not checked: a vision tower's own heads, and the Marlin kernels' tile sizes.

/** One split the size must make evenly. */
interface Division {
  /** What is split, in words: "28 attention heads". */
  what: string;
  count: number;
  /** The size may exceed the count and must then be a multiple of it (KV heads replicate). */
  replicates?: true;
  /** For group-quantized layers: the share per GPU must be a whole number of groups of this size. */
  groupSize?: number;
  rule: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

const count = (value: unknown): number | null =>
  typeof value === "number" && Number.isInteger(value) && value >= 1 ? value : null;

/** vLLM's hf_text_config: the nested text model's config for a multimodal model, else the config itself. */
export function textConfigOf(config: Record<string, unknown>): Record<string, unknown> {
  return isRecord(config.text_config) ? config.text_config : config;
}

/** The divisions a tensor-parallel size must make for this config. */
function divisions(config: Record<string, unknown>): Division[] {
  const text = textConfigOf(config);
  const found: Division[] = [];
  const add = (value: unknown, division: Omit<Division, "count" | "what">, name: string) => {
    const n = count(value);
    if (n !== null) found.push({ ...division, count: n, what: `${n} ${name}` });
  };
  const heads = count(text.num_attention_heads);
  add(heads, { rule: "ModelConfig.verify_with_parallel_config" }, "attention heads");
  // Multi-head latent attention (DeepSeek V2/V3) keeps one latent per token, never split by KV head.
  if (text.kv_lora_rank == null)
    add(
      text.num_key_value_heads ?? heads,
      { replicates: true, rule: "QKVParallelLinear: split, or replicated when fewer than the GPUs" },
      "KV heads",
    );
  for (const [key, name] of mlpWidths(text))
    add(text[key], { rule: "the MLP's column- and row-parallel layers split it" }, `${name} (${key})`);
  found.push(...quantizedGroups(config, text, heads));
  return found;
}

/** The MLP widths vLLM splits: the dense MLP's where the model has dense layers, each expert's, the shared expert's. */
function mlpWidths(text: Record<string, unknown>): [string, string][] {
  const widths: [string, string][] = [];
  const experts = text.moe_intermediate_size != null;
  // Qwen-MoE and DeepSeek configs keep intermediate_size for dense layers they may not have.
  const denseLayers =
    !experts ||
    Number(text.first_k_dense_replace ?? 0) > 0 ||
    (Array.isArray(text.mlp_only_layers) && text.mlp_only_layers.length > 0) ||
    Number(text.decoder_sparse_step ?? 1) > 1;
  if (denseLayers) widths.push(["intermediate_size", "MLP width"]);
  if (experts) widths.push(["moe_intermediate_size", "expert MLP width"]);
  if (text.shared_expert_intermediate_size != null)
    widths.push(["shared_expert_intermediate_size", "shared expert MLP width"]);
  return widths;
}

/** AWQ and GPTQ group their weights along each row-parallel layer's input: o_proj's and down_proj's. */
function quantizedGroups(
  config: Record<string, unknown>,
  text: Record<string, unknown>,
  heads: number | null,
): Division[] {
  const quant = [config.quantization_config, text.quantization_config].find(isRecord);
  const method = String(quant?.quant_method ?? "").toLowerCase();
  const groupSize = count(quant?.group_size ?? quant?.q_group_size);
  if (!["awq", "gptq"].includes(method) || groupSize === null) return [];
  const hidden = count(text.hidden_size);
  const headSize = count(text.head_dim) ?? (hidden !== null && heads ? hidden / heads : null);
  const rule = `${method} groups of ${groupSize} weights: "The input size is not aligned with the quantized weight shape"`;
  const inputs: [number | null, string][] = [
    [heads !== null && headSize !== null ? heads * headSize : null, "o_proj inputs"],
    ...mlpWidths(text).map(([key]): [number | null, string] => [
      count(text[key]),
      `down_proj inputs (${key})`,
    ]),
  ];
  return inputs.flatMap(([n, name]) =>
    n === null || !Number.isInteger(n) ? [] : [{ what: `${n} ${name}`, count: n, groupSize, rule }],
  );
}

function splits(division: Division, tp: number): boolean {
  if (division.replicates && tp >= division.count) return tp % division.count === 0;
  if (division.count % tp !== 0) return false;
  return division.groupSize === undefined || (division.count / tp) % division.groupSize === 0;
}

/** True when vLLM can split this model `tp` ways: every division is even. */
export function tensorParallelStarts(config: Record<string, unknown>, tp: number): boolean {
  return divisions(config).every((division) => splits(division, tp));
}

/** The sizes from 1 to `upTo` that vLLM can split this model into. */
export function tensorParallelSizesThatStart(config: Record<string, unknown>, upTo = 64): number[] {
  const all = divisions(config);
  return Array.from({ length: upTo }, (_, i) => i + 1).filter((tp) =>
    all.every((division) => splits(division, tp)),
  );
}

/** The refusal for a size vLLM cannot split the model into, naming every split that fails and sizes that work. */
export function tensorParallelRefusal(config: Record<string, unknown>, tp: number): Refusal | null {
  const failed = divisions(config).filter((division) => !splits(division, tp));
  if (failed.length === 0) return null;
  const sizes = tensorParallelSizesThatStart(config);
  const below = sizes.filter((n) => n < tp).at(-1) ?? 1;
  const why = failed.map((division) => `${division.what}: ${failText(division, tp)} (${division.rule})`);
  return {
    reason: `tensor_parallel_size ${tp} does not split the model evenly, and vLLM stops: ${why.join("; ")}; sizes that split it: ${sizes.join(", ")}`,
    flags: ["--tensor-parallel-size", String(below)],
  };
}

function failText(division: Division, tp: number): string {
  if (division.replicates && tp >= division.count)
    return `${tp} is not a multiple of them, which replicating them across more GPUs than heads needs`;
  if (division.count % tp === 0 && division.groupSize !== undefined)
    return `${division.count / tp} per GPU is not a whole number of groups of ${division.groupSize}`;
  return `not divisible by ${tp}`;
}
