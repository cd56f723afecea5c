import { describe, expect, it } from "vitest";
import { loraRankRefusal, VLLM_DEFAULT_MAX_LORA_RANK } from "./max-lora-rank.js";

// vLLM's PEFTHelper.validate_legal: an adapter loads when its r is at most max_lora_rank (16 by default).
describe("loraRankRefusal", () => {
  it.each([
    ["rank 16 under the default", 16, undefined, undefined],
    ["rank 8 under 16", 8, 16, undefined],
    ["rank 64 under 64", 64, 64, undefined],
  ])("%s loads", (_name, rank, max, want) => {
    expect(loraRankRefusal(rank, max)).toBe(want);
  });

  it.each([
    [
      "rank 17 under the default",
      17,
      undefined,
      /above vLLM's default --max-lora-rank 16.*--max-lora-rank 32 serves it/,
    ],
    [
      "rank 64 under 32",
      64,
      32,
      /above --max-lora-rank 32.*greater than max_lora_rank 32.*--max-lora-rank 64 serves it/,
    ],
    ["rank 300 under 256", 300, 256, /--max-lora-rank 320 serves it/],
    ["rank 600", 600, 512, /no --max-lora-rank vLLM allows is that large/],
  ])("%s is refused with the value that serves it", (_name, rank, max, want) => {
    expect(loraRankRefusal(rank, max)).toMatch(want);
  });

  it("names vLLM's default as 16", () => {
    expect(VLLM_DEFAULT_MAX_LORA_RANK).toBe(16);
  });
});
