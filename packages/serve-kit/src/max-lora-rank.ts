/** The values `vllm serve --max-lora-rank` accepts (vLLM's `MaxLoRARanks`); its default is 16. */
export const MAX_LORA_RANKS = [1, 8, 16, 32, 64, 128, 256, 320, 512] as const;

export type MaxLoraRank = (typeof MAX_LORA_RANKS)[number];

/**
 * The smallest `--max-lora-rank` that serves an adapter of rank `rank` (the `r` in its adapter_config.json),
 * or `undefined` when no allowed value is that large. vLLM refuses to load an adapter whose rank is above it.
 */
export function maxLoraRankFor(rank: number): MaxLoraRank | undefined {
  if (!Number.isFinite(rank)) return undefined;
  return MAX_LORA_RANKS.find((allowed) => allowed >= rank);
}
