/**
 * The values `vllm serve --max-lora-rank` accepts (vLLM's `MaxLoRARanks`; `LoRAConfig` refuses any other with
 * "max_lora_rank (...) must be one of (...)" from its `possible_max_ranks`).
 */
export const MAX_LORA_RANKS = [1, 8, 16, 32, 64, 128, 256, 320, 512] as const;

export type MaxLoraRank = (typeof MAX_LORA_RANKS)[number];

/** vLLM's `--max-lora-rank` when none is given. */
export const VLLM_DEFAULT_MAX_LORA_RANK: MaxLoraRank = 16;

/**
 * The smallest `--max-lora-rank` that serves an adapter of rank `rank` (the `r` in its adapter_config.json),
 * or `undefined` when no allowed value is that large. vLLM refuses to load an adapter whose rank is above it.
 */
export function maxLoraRankFor(rank: number): MaxLoraRank | undefined {
  if (!Number.isFinite(rank)) return undefined;
  return MAX_LORA_RANKS.find((allowed) => allowed >= rank);
}

/**
 * Why vLLM refuses an adapter of rank `rank` under `--max-lora-rank maxLoraRank` (vLLM's default when
 * undefined), with the value that serves it; `undefined` when it loads. vLLM's rule, PEFTHelper.validate_legal
 * (vllm/lora/peft_helper.py): `r > max_lora_rank` fails with "LoRA rank R is greater than max_lora_rank M",
 * at start for `--lora-modules` (after the base model's weights are loaded), at run time for a loaded one.
 */
export function loraRankRefusal(rank: number, maxLoraRank: number | undefined): string | undefined {
  const max = maxLoraRank ?? VLLM_DEFAULT_MAX_LORA_RANK;
  if (rank <= max) return undefined;
  const given =
    maxLoraRank === undefined ? `vLLM's default --max-lora-rank ${max}` : `--max-lora-rank ${max}`;
  const needed = maxLoraRankFor(rank);
  const fix =
    needed === undefined
      ? `no --max-lora-rank vLLM allows is that large (${MAX_LORA_RANKS.join(", ")})`
      : `--max-lora-rank ${needed} serves it (the smallest of ${MAX_LORA_RANKS.join(", ")} that is ${rank} or more)`;
  return `rank ${rank} is above ${given}, and vLLM refuses it ("LoRA rank ${rank} is greater than max_lora_rank ${max}"): ${fix}`;
}
