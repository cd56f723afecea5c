import { describe, expect, it } from "vitest";
import { ServeConfigError } from "../errors.js";
import { GIB, gpuNamed as gpu, fixtureModel as model } from "../test/plan-fixtures.js";
import { kvMemoryErrorMargin } from "./estimate.js";
import { findGpuModel, GPU_MODELS } from "./gpus.js";
import { layerKvSpecs } from "./kv-cache-spec.js";
import { kvCacheGroups, kvCapacity } from "./kv-capacity.js";
import { parseModelConfig } from "./model-config.js";
import { safetensorsHeaderBytes } from "./model-files.js";
import { planServe } from "./plan-serve.js";

describe("KV bytes per token for each fixture (vLLM's page sizes)", () => {
  it.each([
    ["llama-3.1-8b-instruct", 1, 2 * 8 * 128 * 2 * 32],
    ["llama-2-7b-hf", 1, 2 * 32 * 128 * 2 * 32],
    ["mistral-7b-v0.1", 1, 2 * 8 * 128 * 2 * 32],
    ["mixtral-8x7b-v0.1", 2, 2 * 4 * 128 * 2 * 32],
    ["llama-3.1-8b-instruct-awq-int4", 1, 2 * 8 * 128 * 2 * 32],
    // MLA: one latent of kv_lora_rank + qk_rope_head_dim per layer, never split across ranks.
    ["deepseek-v2-lite-chat", 2, (512 + 64) * 2 * 27],
  ])("%s at tensor_parallel_size %i", (name, tp, want) => {
    const plan = planServe(model(name), gpu("H100", 2), { tensorParallelSize: tp, maxModelLen: 4096 });
    expect(plan.kvCache?.bytesPerToken).toBe(want);
  });

  it("fp8 KV cache halves it", () => {
    const plan = planServe(model("llama-3.1-8b-instruct"), gpu("H100"), { kvCacheDtype: "fp8" });
    expect(plan.kvCache?.bytesPerToken).toBe(2 * 8 * 128 * 32);
  });
});

describe("sliding-window and hybrid layers, laid out as vLLM lays them out", () => {
  it("Mistral 7B v0.1: every layer slides, so a request holds the window and one batch, not max_model_len", () => {
    const plan = planServe(model("mistral-7b-v0.1"), gpu("L4"), {
      maxModelLen: 32768,
      maxNumBatchedTokens: 2048,
    });
    expect(plan.kvCache?.groups).toHaveLength(1);
    // (cdiv(min(4096 - 1 + 2048, 32768), 16) + 1) pages per layer.
    const pagesPerRequest = Math.ceil((4096 - 1 + 2048) / 16) + 1;
    expect(plan.kvCache?.maxConcurrency).toBeCloseTo((plan.kvCache?.numBlocks ?? 0) / pagesPerRequest, 10);
  });

  it("a hybrid of 21 sliding and 21 full layers makes two groups of 21 sharing one pool", () => {
    const base = model("llama-3.1-8b-instruct").config as Record<string, unknown>;
    const layerTypes = Array.from({ length: 42 }, (_, i) =>
      i % 2 === 0 ? "sliding_attention" : "full_attention",
    );
    const config = { ...base, num_hidden_layers: 42, sliding_window: 4096, layer_types: layerTypes };
    const shape = parseModelConfig(config).shape;
    if (!shape) throw new Error("unknown");
    const specs = layerKvSpecs(shape, 1, 2);
    expect(kvCacheGroups(specs).map((group) => [group.spec.kind, group.layers])).toEqual([
      ["sliding", 21],
      ["full", 21],
    ]);
    const page = specs[0]?.pageBytes ?? 0;
    const capacity = kvCapacity(specs, 1000 * page * 21, { maxModelLen: 8192, maxNumBatchedTokens: 2048 });
    expect(capacity.numBlocks).toBe(1000);
    // Two groups share the blocks: num_blocks // groups × block_size.
    expect(capacity.tokens).toBe(500 * 16);
    expect(capacity.maxConcurrency).toBeCloseTo(1000 / (8192 / 16 + Math.ceil((4095 + 2048) / 16) + 1), 10);
  });

  it("uneven kinds are padded: 10 full and 20 sliding layers make three groups of 10", () => {
    const specs = [
      ...Array.from({ length: 10 }, () => ({
        kind: "full" as const,
        blockSize: 16,
        pageBytes: 4096,
        slidingWindow: null,
      })),
      ...Array.from({ length: 20 }, () => ({
        kind: "sliding" as const,
        blockSize: 16,
        pageBytes: 4096,
        slidingWindow: 1024,
      })),
    ];
    expect(kvCacheGroups(specs).map((group) => group.layers)).toEqual([10, 10, 10]);
  });
});

describe("the verdict", () => {
  it("fits: Llama 3.1 8B on an H100 at its full 131072 tokens", () => {
    const plan = planServe(model("llama-3.1-8b-instruct"), gpu("H100"));
    expect(plan.verdict.kind).toBe("fits");
    expect(plan.resolved.maxModelLen).toBe(131072);
  });

  it("fits only with a shorter max_model_len: Llama 3.1 8B on an L4, leaving the plan's error margin free", () => {
    const plan = planServe(model("llama-3.1-8b-instruct"), gpu("L4"));
    expect(plan.verdict.kind).toBe("fits-with-max-model-len");
    if (plan.verdict.kind !== "fits-with-max-model-len") return;
    const len = plan.verdict.maxModelLen;
    expect(plan.verdict.flags).toEqual(["--max-model-len", String(len)]);
    // vLLM's own estimate fills the KV memory to the last block; the suggestion keeps the plan's margin free.
    const vllmEstimate = plan.kvCache?.largestFittingModelLen ?? 0;
    expect(len).toBeLessThan(vllmEstimate);
    expect(plan.verdict.summary).toContain(`vLLM's own estimate is ${vllmEstimate}`);
    const again = planServe(model("llama-3.1-8b-instruct"), gpu("L4"), { maxModelLen: len });
    expect(again.verdict.kind).toBe("fits");
    const left = again.availableKvMemory.signedBytes - (again.kvCache?.bytesPerFullRequest ?? 0);
    expect(left).toBeGreaterThanOrEqual(
      kvMemoryErrorMargin(again.availableKvMemory.signedBytes) - 16 * 131072,
    );
    const over = planServe(model("llama-3.1-8b-instruct"), gpu("L4"), { maxModelLen: vllmEstimate + 16 });
    expect(over.verdict.kind).not.toBe("fits");
  });

  it("the margin follows the plan's measured error: an 8B on 24 GiB is offered all but 0.5 GiB of vLLM's estimate", () => {
    const plan = planServe(model("llama-3.1-8b-instruct"), { name: "24 GiB GPU", memoryBytes: 24 * GIB });
    if (plan.verdict.kind !== "fits-with-max-model-len") throw new Error(plan.verdict.summary);
    const vllmEstimate = plan.kvCache?.largestFittingModelLen ?? 0;
    // 128 KiB a token: 0.5 GiB is 4096 tokens (a flat 1.5 GiB left 12,288 fewer: 10,400 of 22,688 offered).
    expect(plan.verdict.maxModelLen).toBeGreaterThanOrEqual(vllmEstimate - 4096 - 16);
    expect(plan.verdict.maxModelLen).toBeLessThanOrEqual(vllmEstimate - 4096);
    expect(plan.verdict.summary).toContain("leaves 0.50 GiB of KV cache memory for the plan's error");
  });

  it("needs tensor parallelism: Mixtral 8x7B on one H100, two suffice", () => {
    const plan = planServe(model("mixtral-8x7b-v0.1"), gpu("H100", 1));
    expect(plan.availableKvMemory.signedBytes).toBeLessThan(0);
    expect(plan.verdict).toMatchObject({ kind: "needs-tensor-parallel", tensorParallelSize: 2 });
    expect(plan.verdict.summary).toContain("2 GPUs; 1 given");
  });

  it("does not fit: a terabyte of Mixtral-shaped weights on a T4, even split 8 ways", () => {
    const plan = planServe(
      { config: model("mixtral-8x7b-v0.1").config, weightsBytes: 1024 * GIB },
      gpu("T4"),
    );
    expect(plan.verdict.kind).toBe("does-not-fit");
  });

  it("AWQ weights are the checkpoint's own size", () => {
    const plan = planServe(model("llama-3.1-8b-instruct-awq-int4"), gpu("L4"));
    expect(plan.weights.bytes).toBe(5727854592);
    expect(plan.weights.rule).toContain("awq");
  });

  it("--quantization fp8 on a 16-bit checkpoint halves the linear layers, not the embeddings", () => {
    const plan = planServe(model("llama-3.1-8b-instruct"), gpu("L4"), { quantization: "fp8" });
    const embeddings = 2 * 128256 * 4096 * 2;
    expect(plan.weights.bytes).toBe(Math.round(embeddings + (16060522496 - embeddings) / 2));
    expect(plan.weights.estimate).toBe(true);
  });

  it("LoRA slots are added to the weights; the CPU cache is host memory", () => {
    const without = planServe(model("llama-3.1-8b-instruct"), gpu("H100"));
    const lora = planServe(model("llama-3.1-8b-instruct"), gpu("H100"), {
      maxLoras: 4,
      maxLoraRank: 64,
      maxCpuLoras: 8,
    });
    // Per layer: qkv (4096 -> 6144), o (4096 -> 4096), gate_up (4096 -> 28672), down (14336 -> 4096).
    const perLayer = 4096 + 6144 + 4096 + 4096 + 4096 + 28672 + 14336 + 4096;
    const adapter = perLayer * 32 * 64 * 2;
    expect(lora.lora?.gpuBytes).toBe(4 * adapter);
    expect(lora.lora?.cpuBytes).toBe(8 * adapter);
    expect(lora.weights.bytes - without.weights.bytes).toBe(4 * adapter);
    // --enable-lora alone takes vLLM's defaults: one slot of rank 16, one adapter in the CPU cache.
    const defaults = planServe(model("llama-3.1-8b-instruct"), gpu("H100"), { enableLora: true });
    expect(defaults.lora?.gpuBytes).toBe(perLayer * 32 * 16 * 2);
    expect(defaults.lora?.cpuBytes).toBe(perLayer * 32 * 16 * 2);
  });

  it("an unknown architecture gives the weights and says which figures it cannot give", () => {
    const config = {
      ...(model("llama-3.1-8b-instruct").config as object),
      architectures: ["MambaForCausalLM"],
    };
    const plan = planServe({ config, weightsBytes: 3 * GIB }, gpu("L4"));
    expect(plan.kvCache).toBeNull();
    expect(plan.weights.bytes).toBe(3 * GIB);
    expect(plan.cannotGive.join(" ")).toMatch(/MambaForCausalLM.*GPU KV cache size/);
    expect(plan.verdict.kind).toBe("unknown");
  });
});

describe("--max-model-len as vLLM reads it (human_readable_int)", () => {
  it.each([
    ["8192", 8192],
    ["8k", 8000],
    ["8K", 8192],
    ["25.6k", 25600],
    ["0.5m", 500000],
    ["1M", 1048576],
    [" 4k ", 4000],
    [4096, 4096],
  ])("takes %j as %i tokens", (given, tokens) => {
    const plan = planServe(model("llama-3.1-8b-instruct"), gpu("H100"), { maxModelLen: given as number });
    expect(plan.resolved.maxModelLen).toBe(tokens);
  });

  it.each([["8.5K"], ["8kb"], ["-1"], ["auto"], ["0k"], ["0.0001k"], ["1e3"], [""], [0], [2.5]])(
    "refuses %j with the rule",
    (given) => {
      expect(() =>
        planServe(model("llama-3.1-8b-instruct"), gpu("H100"), { maxModelLen: given as number }),
      ).toThrow(
        /maxModelLen: must be a whole number of tokens of at least 1, such as 8192, or with vLLM's suffixes: 8k = 8000, 8K = 8192/,
      );
    },
  );
});

describe("bad input is refused, naming the field, the rule and what was given", () => {
  it.each([
    [
      "a config without num_hidden_layers",
      { config: { architectures: ["LlamaForCausalLM"] }, weightsBytes: 1 },
      {},
      /num_hidden_layers: must be an integer/,
    ],
    [
      "a config that is not an object",
      { config: "nope", weightsBytes: 1 },
      {},
      /config\.json: must be an object/,
    ],
    ["no architectures", { config: {}, weightsBytes: 1 }, {}, /architectures: must be a list/],
    [
      "an index without total_size",
      { config: model("llama-2-7b-hf").config, safetensorsIndex: { metadata: {} } },
      {},
      /total_size: must be a whole number/,
    ],
    [
      "no weights' size at all",
      { config: model("llama-2-7b-hf").config },
      {},
      /model\.safetensors\.index\.json: is needed/,
    ],
    [
      "a utilization above 1",
      model("llama-2-7b-hf"),
      { gpuMemoryUtilization: 1.5 },
      /gpuMemoryUtilization: must be a number above 0 and at most 1 .*\(given 1\.5\)/,
    ],
    [
      "an unknown KV cache type",
      model("llama-2-7b-hf"),
      { kvCacheDtype: "int3" },
      /kvCacheDtype: must be one of auto, bfloat16, float16, fp8, fp8_e4m3, fp8_e5m2 \(given "int3"\)/,
    ],
    [
      "a misspelt setting",
      model("llama-2-7b-hf"),
      { maxModelLength: 10 },
      /maxModelLength: is not an option of the plan's settings/,
    ],
    [
      "more GPUs split than given",
      model("llama-2-7b-hf"),
      { tensorParallelSize: 2 },
      /tensorParallelSize: must not exceed the GPUs available \(1\)/,
    ],
    [
      "a CPU cache smaller than the GPU slots",
      model("llama-2-7b-hf"),
      { maxLoras: 4, maxCpuLoras: 2 },
      /maxCpuLoras: must be at least maxLoras \(4\)/,
    ],
    [
      "enableLora that is not a switch",
      model("llama-2-7b-hf"),
      { enableLora: "yes" },
      /enableLora: must be true or false/,
    ],
  ])("%s", (_, input, settings, message) => {
    const call = () => planServe(input as never, gpu("L4", 1), settings as never);
    expect(call).toThrow(ServeConfigError);
    expect(call).toThrow(message);
  });

  it("a GPU of less than 1 GiB", () => {
    expect(() => planServe(model("llama-2-7b-hf"), { memoryBytes: 1000 })).toThrow(
      /gpu\.memoryBytes: must be a whole number of bytes, at least 1 GiB/,
    );
  });
});

describe("the GPU table and safetensors headers", () => {
  it("finds GPUs by short name and by what nvidia-smi prints", () => {
    expect(findGpuModel("h100")?.name).toBe("H100");
    expect(findGpuModel("NVIDIA A100-SXM4-80GB")?.name).toBe("A100-80GB");
    expect(findGpuModel("NVIDIA GeForce RTX 4090")?.memoryBytes).toBe(24564 * 1024 ** 2);
    expect(findGpuModel("Voodoo 2")).toBeUndefined();
    expect(new Set(GPU_MODELS.map((model) => model.name)).size).toBe(GPU_MODELS.length);
  });

  it("sizes a safetensors file by the end of its last tensor", () => {
    const header = {
      __metadata__: { format: "pt" },
      "a.weight": { dtype: "BF16", shape: [2, 2], data_offsets: [0, 8] },
      "b.weight": { dtype: "BF16", shape: [4], data_offsets: [8, 16] },
    };
    expect(safetensorsHeaderBytes(header, "model.safetensors")).toBe(16);
    expect(() => safetensorsHeaderBytes({ x: { data_offsets: [1] } }, "model.safetensors")).toThrow(
      /model\.safetensors x\.data_offsets: must be \[start, end\]/,
    );
  });
});
