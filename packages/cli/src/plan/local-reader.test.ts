import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { planServe } from "@finetune-studio/serve-kit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readLocalModel } from "./local-reader.js";

// A local model without an index is sized from its files' headers; an lm_head.weight stored beside tied
// embeddings is reported so the plan can leave it out, as vLLM does (Qwen3-0.6B's single file is one).

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "local-reader-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A safetensors file of headers only: the reader never reads past them. */
function safetensors(tensors: Record<string, [number, number]>): Buffer {
  const entries = Object.entries(tensors).map(([name, offsets]) => [
    name,
    { dtype: "BF16", shape: [(offsets[1] - offsets[0]) / 2], data_offsets: offsets },
  ]);
  const header = Buffer.from(JSON.stringify(Object.fromEntries(entries)));
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(header.length));
  return Buffer.concat([length, header]);
}

const CONFIG = {
  architectures: ["Qwen3ForCausalLM"],
  num_hidden_layers: 2,
  hidden_size: 1024,
  intermediate_size: 3072,
  vocab_size: 151936,
  num_attention_heads: 16,
  num_key_value_heads: 8,
  head_dim: 128,
  max_position_embeddings: 40960,
  tie_word_embeddings: true,
  torch_dtype: "bfloat16",
};

describe("reading a local model from its safetensors headers", () => {
  it("reports the stored lm_head.weight, which the plan leaves out of a tied model's weights", async () => {
    await writeFile(join(dir, "config.json"), JSON.stringify(CONFIG));
    const head = 151936 * 1024 * 2;
    await writeFile(
      join(dir, "model.safetensors"),
      safetensors({ "model.embed_tokens.weight": [0, head], "lm_head.weight": [head, 2 * head] }),
    );
    const model = await readLocalModel(dir);
    expect(model).toMatchObject({ weightsBytes: 2 * head, lmHeadBytes: head });
    const plan = planServe(model, { memoryBytes: 24 * 1024 ** 3 }, { maxModelLen: 4096 });
    expect(plan.weights.bytes).toBe(head);
  });
});
