import { describe, expect, it } from "vitest";
import { fixtureModel, GIB, gpuNamed } from "../test/plan-fixtures.js";
import { ARCHITECTURE_FAMILIES, KNOWN_ARCHITECTURES } from "./architectures.js";
import { layerKvSpecs } from "./kv-cache-spec.js";
import { kvCacheGroups } from "./kv-capacity.js";
import { activationPeak, forwardPassPeak, samplerPeak } from "./memory-profile.js";
import { type ModelShape, parseModelConfig } from "./model-config.js";
import { loadedCheckpointBytes, safetensorsLmHeadBytes } from "./model-files.js";
import { planServe } from "./plan-serve.js";

function shapeOf(config: unknown): ModelShape {
  const { shape, unknownArchitecture } = parseModelConfig(config);
  if (!shape) throw new Error(`unknown architecture ${unknownArchitecture}`);
  return shape;
}

describe("the architecture table: one entry per family", () => {
  it("names each architecture once", () => {
    expect(new Set(KNOWN_ARCHITECTURES).size).toBe(KNOWN_ARCHITECTURES.length);
    expect(KNOWN_ARCHITECTURES.length).toBe(
      ARCHITECTURE_FAMILIES.reduce((sum, family) => sum + family.architectures.length, 0),
    );
  });

  it("gpt-oss-20b is planned: layer_types alternate a 128-token window and full attention", () => {
    const model = fixtureModel("gpt-oss-20b");
    const shape = shapeOf(model.config);
    expect(shape.moe).toEqual({
      experts: 32,
      activeExperts: 4,
      expertIntermediateSize: 2880,
      sharedExperts: 0,
    });
    expect(shape.quantization?.method).toBe("mxfp4");
    expect(shape.derivedMaxModelLen).toBe(4096 * 32);
    const groups = kvCacheGroups(layerKvSpecs(shape, 1, 2));
    expect(groups.map((group) => [group.spec.kind, group.spec.slidingWindow, group.layers])).toEqual([
      ["sliding", 128, 12],
      ["full", null, 12],
    ]);
    const plan = planServe(model, gpuNamed("H100"), { maxModelLen: 16000 });
    expect(plan.kvCache?.bytesPerToken).toBe(2 * 8 * 64 * 2 * 24);
    expect(plan.verdict.kind).toBe("fits");
  });

  it("Mistral-Small-3.2 (Mistral3ForConditionalGeneration) is read from its text_config", () => {
    const model = fixtureModel("mistral-small-3.2-24b-instruct");
    const shape = shapeOf(model.config);
    expect([shape.layers, shape.attentionHeads, shape.kvHeads, shape.headSize]).toEqual([40, 32, 8, 128]);
    expect(shape.vocabSize).toBe(131072);
    expect(shape.derivedMaxModelLen).toBe(131072);
    expect(shape.checkpointDtype).toBe("bfloat16");
    expect(shape.layerAttention.every((kind) => kind === "full")).toBe(true);
    // The vision tower is loaded too: the weights are the whole checkpoint's.
    const plan = planServe(model, gpuNamed("H100"), { maxModelLen: 16000 });
    expect(plan.weights.bytes).toBe(48022722560);
  });

  it("a field missing from text_config is named where it was looked for", () => {
    const config = fixtureModel("mistral-small-3.2-24b-instruct").config;
    const { num_hidden_layers: _, ...text } = config.text_config as Record<string, unknown>;
    expect(() => parseModelConfig({ ...config, text_config: text })).toThrow(
      /config\.json text_config num_hidden_layers: must be an integer of at least 1 \(given nothing\)/,
    );
    expect(() => parseModelConfig({ ...config, text_config: "x" })).toThrow(
      /config\.json text_config: must be an object/,
    );
  });

  it("Qwen2-VL's older configs keep the language model at the top, and are read there", () => {
    const config = {
      ...fixtureModel("qwen2.5-7b-instruct").config,
      architectures: ["Qwen2VLForConditionalGeneration"],
    };
    expect(shapeOf(config).layers).toBe(28);
  });

  it("Gemma 3 slides except on every sliding_window_pattern-th layer", () => {
    const config = {
      architectures: ["Gemma3ForConditionalGeneration"],
      torch_dtype: "bfloat16",
      text_config: {
        num_hidden_layers: 12,
        hidden_size: 2560,
        intermediate_size: 10240,
        vocab_size: 262208,
        num_attention_heads: 8,
        num_key_value_heads: 4,
        head_dim: 256,
        sliding_window: 1024,
        sliding_window_pattern: 6,
        max_position_embeddings: 131072,
      },
    };
    const kinds = shapeOf(config).layerAttention;
    expect(kinds.map((kind, index) => (kind === "full" ? index : -1)).filter((i) => i >= 0)).toEqual([5, 11]);
  });
});

describe("the weights vLLM loads", () => {
  it("Qwen3-0.6B: the lm_head tied to the embeddings is not counted (1.11 GiB, vLLM logged 1.12)", () => {
    const model = fixtureModel("qwen3-0.6b");
    const head = 151936 * 1024 * 2;
    expect(loadedCheckpointBytes(model, shapeOf(model.config))).toBe(1503264768 - head);
    const plan = planServe(model, gpuNamed("H100"), { maxModelLen: 16000 });
    expect(plan.weights.bytes / GIB).toBeCloseTo(1.11, 2);
    expect(plan.weights.rule).toContain("tied to the embeddings");
  });

  it("a tied checkpoint whose index lists no lm_head is counted whole", () => {
    const model = fixtureModel("qwen3-0.6b");
    const index = { metadata: { total_size: 1192099840 }, weight_map: {} };
    expect(loadedCheckpointBytes({ ...model, safetensorsIndex: index }, shapeOf(model.config))).toBe(
      1192099840,
    );
  });

  it("from the safetensors headers: the header's lm_head.weight is taken off when tied, kept when not", () => {
    const header = {
      __metadata__: { format: "pt" },
      "model.embed_tokens.weight": { dtype: "BF16", shape: [8, 4], data_offsets: [0, 64] },
      "lm_head.weight": { dtype: "BF16", shape: [8, 4], data_offsets: [64, 128] },
    };
    const lmHeadBytes = safetensorsLmHeadBytes(header, "model.safetensors");
    expect(lmHeadBytes).toBe(64);
    const tied = shapeOf(fixtureModel("qwen3-0.6b").config);
    const untied = shapeOf(fixtureModel("qwen3-32b").config);
    expect(loadedCheckpointBytes({ config: {}, weightsBytes: 128, lmHeadBytes }, tied)).toBe(64);
    expect(loadedCheckpointBytes({ config: {}, weightsBytes: 128, lmHeadBytes }, untied)).toBe(128);
    expect(safetensorsLmHeadBytes({ "a.weight": header["lm_head.weight"] }, "model.safetensors")).toBe(0);
    expect(() => loadedCheckpointBytes({ config: {}, weightsBytes: 128, lmHeadBytes: 200 }, tied)).toThrow(
      /lmHeadBytes: must be a whole number of bytes below weightsBytes \(128\) \(given 200\)/,
    );
  });
});

describe("the start-up profile's activation peak", () => {
  it("is the sampler's run for Qwen3-32B on an H100 (8192 tokens, 1024 requests), not the sum of both", () => {
    const shape = shapeOf(fixtureModel("qwen3-32b").config);
    const peak = activationPeak(shape, 8192, 1024, 1, 2);
    expect(peak.bytes).toBe(samplerPeak(shape, 1024));
    expect(peak.bytes).toBeGreaterThan(forwardPassPeak(shape, 8192, 1, 2));
    // vLLM logged a torch peak of 5.64 GiB for this model and profile.
    expect(Math.abs(peak.bytes / GIB - 5.64)).toBeLessThan(0.1);
  });

  it("is the forward pass when it holds more: 20000 tokens through Llama 3.1 8B, 256 requests", () => {
    const shape = shapeOf(fixtureModel("llama-3.1-8b-instruct").config);
    const peak = activationPeak(shape, 20000, 256, 1, 2);
    expect(peak.bytes).toBe(forwardPassPeak(shape, 20000, 1, 2));
  });
});

describe("the page size", () => {
  it("takes --block-size (the engine option blockSize), and CUDA's 16 without it", () => {
    const model = fixtureModel("qwen3-32b");
    const settings = { maxModelLen: 16000 };
    const small = planServe(model, gpuNamed("H100"), settings);
    const large = planServe(model, gpuNamed("H100"), { ...settings, blockSize: 128 });
    expect(small.resolved.blockSize).toBe(16);
    expect(large.kvCache?.groups[0]?.spec.pageBytes).toBe(
      8 * (small.kvCache?.groups[0]?.spec.pageBytes ?? 0),
    );
    // The same memory in pages 8 times larger: whole pages of 128 tokens.
    expect((large.kvCache?.tokens ?? 0) % 128).toBe(0);
    expect(large.kvCache?.numBlocks).toBe(Math.floor((small.kvCache?.numBlocks ?? 0) / 8));
  });
});
