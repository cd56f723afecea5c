import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { findGpuModel } from "./gpus.js";
import { planServe } from "./plan-serve.js";

// vLLM's start-up checks, as verdicts naming the flag that fixes them, and the verdict's one path: the
// fixtures are real models' config.json and index (Llama 3.1 8B: 32 attention heads, 8 KV heads, 131072
// positions, bfloat16; its AWQ checkpoint).

const FIXTURES = new URL("./fixtures/", import.meta.url);
const readJson = (path: string): unknown => JSON.parse(readFileSync(new URL(path, FIXTURES), "utf8"));
const model = (name: string) => ({
  config: readJson(`${name}/config.json`),
  safetensorsIndex: readJson(`${name}/model.safetensors.index.json`),
});
const LLAMA = model("llama-3.1-8b-instruct");
const AWQ = model("llama-3.1-8b-instruct-awq-int4");
const gpu = (name: string, count = 1) => {
  const found = findGpuModel(name);
  if (!found) throw new Error(`no GPU ${name}`);
  return {
    name: found.name,
    memoryBytes: found.memoryBytes,
    computeCapability: found.computeCapability,
    count,
  };
};
const GIB = 1024 ** 3;

const QWEN = model("qwen2.5-7b-instruct");

describe("tensor parallelism must split every layer evenly (verify_with_parallel_config, QKVParallelLinear, the MLP)", () => {
  it("refuses --tensor-parallel-size 3 on a 32-head model, naming a size that divides them", () => {
    const plan = planServe(LLAMA, gpu("H100", 4), { tensorParallelSize: 3 });
    expect(plan.verdict).toMatchObject({
      kind: "refused",
      flags: ["--tensor-parallel-size", "2"],
    });
    expect(plan.verdict.summary).toMatch(/32 attention heads: not divisible by 3/);
    // 8 KV heads (replicated from 16 up) and an MLP of 14336 = 2^11 × 7: 64 splits neither the heads nor 7.
    expect(plan.verdict.summary).toMatch(/sizes that split it: 1, 2, 4, 8, 16, 32$/);
  });

  it("Qwen2.5-7B (28 heads, 4 KV heads, MLP 18944): 7 divides the heads but not the KV heads or the MLP", () => {
    const plan = planServe(QWEN, gpu("H100", 7), { tensorParallelSize: 7 });
    expect(plan.verdict).toMatchObject({ kind: "refused", flags: ["--tensor-parallel-size", "4"] });
    expect(plan.verdict.summary).toMatch(/4 KV heads: 7 is not a multiple of them/);
    expect(plan.verdict.summary).toMatch(/18944 MLP width \(intermediate_size\): not divisible by 7/);
    expect(plan.verdict.summary).toMatch(/sizes that split it: 1, 2, 4$/);
  });

  it("Qwen2.5-7B on 8 GPUs: 8 is refused, and the size it names starts and fits", () => {
    const plan = planServe(QWEN, gpu("T4", 8), { tensorParallelSize: 8, maxModelLen: 8192 });
    expect(plan.verdict).toMatchObject({ kind: "refused", flags: ["--tensor-parallel-size", "4"] });
    const followed = planServe(QWEN, gpu("T4", 8), { tensorParallelSize: 4, maxModelLen: 8192 });
    expect(followed.verdict.kind).toBe("fits");
  });

  it("every size the plan suggests splits the model: a Qwen2.5-shaped 70 GiB on seven T4s is never offered 7", () => {
    // Split 2 or 4 ways the weights do not fit a T4; 7 ways they would, but 7 does not split the KV heads or
    // the MLP, and 8 not the attention heads: nothing vLLM would start holds it.
    const heavy = { config: QWEN.config, weightsBytes: 70 * GIB };
    const plan = planServe(heavy, gpu("T4", 7));
    expect(plan.verdict.kind).toBe("does-not-fit");
    expect(plan.verdict.summary).toContain("even at tensor_parallel_size 4");
    expect(plan.verdict.flags).toEqual([]);
    // Where a size that splits it does hold it, that size is named.
    const lighter = planServe({ config: QWEN.config, weightsBytes: 40 * GIB }, gpu("T4", 7));
    expect(lighter.verdict).toMatchObject({ kind: "needs-tensor-parallel", tensorParallelSize: 4 });
  });

  it("a mixture of experts' width too (FusedMoE): a DeepSeek-V2-Lite whose experts are 1416 wide does not split 16 ways", () => {
    const deepseek = model("deepseek-v2-lite-chat");
    const wider = { ...deepseek, config: { ...(deepseek.config as object), moe_intermediate_size: 1416 } };
    const plan = planServe(wider, gpu("H100", 16), { tensorParallelSize: 16, maxModelLen: 4096 });
    expect(plan.verdict.summary).toMatch(
      /1416 expert MLP width \(moe_intermediate_size\): not divisible by 16/,
    );
    // MLA keeps one latent per token: its KV heads are not split, so they set no rule.
    expect(plan.verdict.summary).not.toMatch(/KV heads/);
    expect(
      planServe(deepseek, gpu("H100", 8), { tensorParallelSize: 8, maxModelLen: 4096 }).verdict.kind,
    ).toBe("fits");
  });

  it("an AWQ checkpoint's groups: each GPU's share of a row-parallel layer holds whole groups of 128", () => {
    const config = { ...(AWQ.config as Record<string, unknown>), intermediate_size: 14336 + 1024 };
    // 15360 / 16 = 960 per GPU: divisible, but not whole groups of 128.
    const plan = planServe({ ...AWQ, config }, gpu("H100", 16), {
      tensorParallelSize: 16,
      maxModelLen: 4096,
    });
    expect(plan.verdict.summary).toMatch(
      /15360 down_proj inputs \(intermediate_size\): 960 per GPU is not a whole number of groups of 128/,
    );
  });

  it("takes 16 on 32 heads: the 8 KV heads replicate, one per GPU", () => {
    const plan = planServe(LLAMA, gpu("H100", 16), { tensorParallelSize: 16 });
    expect(plan.verdict.kind).toBe("fits");
    expect(plan.kvCache?.bytesPerToken).toBe(2 * 1 * 128 * 2 * 32);
  });

  it("holds for an architecture the plan cannot lay out too, read from its config", () => {
    const config = { ...(LLAMA.config as object), architectures: ["MambaForCausalLM"] };
    const plan = planServe({ config, weightsBytes: 3 * GIB }, gpu("L4", 4), { tensorParallelSize: 3 });
    expect(plan.verdict.kind).toBe("refused");
  });
});

describe("max_model_len within the model's own (_get_and_verify_max_len)", () => {
  it("refuses 200000 on a 131072-position model, and names VLLM_ALLOW_LONG_MAX_MODEL_LEN", () => {
    const plan = planServe(LLAMA, gpu("H200", 8), { maxModelLen: 200_000, tensorParallelSize: 8 });
    expect(plan.verdict).toMatchObject({ kind: "refused", flags: ["--max-model-len", "131072"] });
    expect(plan.verdict.summary).toMatch(/max_model_len 200000 is more than the model's 131072/);
    expect(plan.verdict.summary).toContain("VLLM_ALLOW_LONG_MAX_MODEL_LEN=1");
  });

  it("honours VLLM_ALLOW_LONG_MAX_MODEL_LEN as vLLM reads it: a warning, not a refusal", () => {
    const settings = { maxModelLen: 200_000, tensorParallelSize: 8 };
    for (const value of ["1", "true", " TRUE "]) {
      const plan = planServe(LLAMA, gpu("H200", 8), settings, { VLLM_ALLOW_LONG_MAX_MODEL_LEN: value });
      expect(plan.verdict.kind).toBe("fits");
      expect(plan.notes.join(" ")).toMatch(/VLLM_ALLOW_LONG_MAX_MODEL_LEN is set/);
    }
    const off = planServe(LLAMA, gpu("H200", 8), settings, { VLLM_ALLOW_LONG_MAX_MODEL_LEN: "0" });
    expect(off.verdict.kind).toBe("refused");
    expect(() =>
      planServe(LLAMA, gpu("H200", 8), settings, { VLLM_ALLOW_LONG_MAX_MODEL_LEN: 1 as unknown as string }),
    ).toThrow(expect.objectContaining({ field: "environment.VLLM_ALLOW_LONG_MAX_MODEL_LEN" }));
  });
});

describe("--quantization against the checkpoint (ModelConfig._verify_quantization)", () => {
  it.each([
    ["awq on a bfloat16 checkpoint", LLAMA, "awq", /config\.json has no quantization_config/, []],
    [
      "gptq on an awq checkpoint",
      AWQ,
      "gptq",
      /does not match the checkpoint's quantization_config \(awq\)/,
      ["--quantization", "awq"],
    ],
  ])("refuses %s", (_, files, quantization, message, flags) => {
    const plan = planServe(files, gpu("H100"), { quantization: quantization as "awq" });
    expect(plan.verdict).toMatchObject({ kind: "refused", flags });
    expect(plan.verdict.summary).toMatch(message);
  });

  it.each([
    ["the checkpoint's own method", AWQ, "awq"],
    ["a kernel that overrides it", AWQ, "awq_marlin"],
    ["a method that quantizes while loading", LLAMA, "fp8"],
  ])("takes %s", (_, files, quantization) => {
    const plan = planServe(files, gpu("H100"), { quantization: quantization as "awq" });
    expect(plan.verdict.kind).toBe("fits");
  });

  it("refuses a method vLLM does not know, with the list, as a bad setting", () => {
    expect(() => planServe(LLAMA, gpu("H100"), { quantization: "bogus" as "awq" })).toThrow(
      expect.objectContaining({
        field: "quantization",
        rule: expect.stringMatching(/^must be one of awq, /),
      }),
    );
  });
});

describe("a quantization method the GPU cannot run (each method's get_min_capability)", () => {
  it("refuses an AWQ checkpoint on a V100 (7.0; AWQ needs 7.5), saying what runs there", () => {
    const plan = planServe(AWQ, gpu("V100-32GB"), { maxModelLen: 4096 });
    expect(plan.verdict.kind).toBe("refused");
    expect(plan.verdict.summary).toMatch(
      /awq needs a GPU of compute capability 7\.5 or more, and the V100-32GB has 7\.0 .*"The quantization method awq is not supported for the current GPU"/,
    );
    expect(plan.verdict.summary).toMatch(
      /serve a 16-bit checkpoint of the model, or one quantized with a method this GPU runs \(here: gptq, bitsandbytes\)/,
    );
  });

  it("takes the AWQ checkpoint on a T4 (7.5)", () => {
    const plan = planServe(AWQ, gpu("T4"), { maxModelLen: 4096, dtype: "float16" });
    expect(plan.verdict.kind).toBe("fits");
  });

  it("refuses --quantization fp8 on a T4 (7.5; fp8 needs 8.0), naming what to do instead", () => {
    const plan = planServe(LLAMA, gpu("T4", 2), {
      quantization: "fp8",
      tensorParallelSize: 2,
      maxModelLen: 4096,
    });
    expect(plan.verdict.kind).toBe("refused");
    expect(plan.verdict.summary).toMatch(
      /fp8 needs a GPU of compute capability 8\.0 or more, and the T4 has 7\.5/,
    );
    expect(plan.verdict.summary).toMatch(/leave --quantization out to serve the checkpoint as stored/);
  });

  it("fp8 on an A100 (8.0) starts, weight-only through Marlin: said in a note; natively on an L4 (8.9)", () => {
    const a100 = planServe(LLAMA, gpu("A100-40GB"), { quantization: "fp8", maxModelLen: 4096 });
    expect(a100.verdict.kind).toBe("fits");
    expect(a100.notes.join(" ")).toMatch(
      /A100-40GB \(compute capability 8\.0\) has no FP8 in hardware: .*weight-only/,
    );
    const l4 = planServe(LLAMA, gpu("L4"), { quantization: "fp8", maxModelLen: 4096 });
    expect(l4.notes.join(" ")).not.toMatch(/FP8/);
  });

  it("an FP8 compressed-tensors checkpoint is refused on a T4 by its scheme's rule", () => {
    const fp8 = model("llama-3.3-70b-instruct-fp8-dynamic");
    const plan = planServe(fp8, gpu("T4", 8), { tensorParallelSize: 8, maxModelLen: 4096 });
    expect(plan.verdict.summary).toMatch(
      /FP8 \(compressed-tensors\) needs a GPU of compute capability 8\.0 .*"Quantization scheme is not supported for the current GPU"/,
    );
  });
});

describe("a dtype the GPU cannot run (CudaPlatform.check_if_supports_dtype)", () => {
  it("refuses bfloat16 on a T4 (compute capability 7.5), naming float16", () => {
    const plan = planServe(LLAMA, gpu("T4", 4), {
      dtype: "bfloat16",
      tensorParallelSize: 4,
      maxModelLen: 4096,
    });
    expect(plan.verdict).toMatchObject({ kind: "refused", flags: ["--dtype", "float16"] });
    expect(plan.verdict.summary).toMatch(/compute capability 8\.0 or more, and the T4 has 7\.5/);
  });

  it("with auto, says vLLM serves a bfloat16 checkpoint in float16 there, and plans it", () => {
    const plan = planServe(LLAMA, gpu("T4", 4), { tensorParallelSize: 4, maxModelLen: 4096 });
    expect(plan.verdict.kind).toBe("fits");
    expect(plan.notes.join(" ")).toMatch(
      /T4 \(compute capability 7\.5\) has no bfloat16: vLLM serves .* in float16/,
    );
  });

  it("a model type vLLM will not run in float16 (Gemma 2): --dtype float16 refused; auto on a T4 serves float32", () => {
    const gemma = {
      ...LLAMA,
      config: { ...(LLAMA.config as object), architectures: ["Gemma2ForCausalLM"], model_type: "gemma2" },
    };
    const half = planServe(gemma, gpu("L4"), { dtype: "float16", maxModelLen: 4096 });
    expect(half.verdict).toMatchObject({ kind: "refused", flags: ["--dtype", "bfloat16"] });
    expect(half.verdict.summary).toMatch(/gemma2 models do not run in float16/);
    const settings = { tensorParallelSize: 4, maxModelLen: 4096 };
    const onT4 = planServe(gemma, gpu("T4", 4), settings);
    const onL4 = planServe(gemma, gpu("L4", 4), settings);
    expect(onT4.notes.join(" ")).toMatch(/vLLM serves this bfloat16 checkpoint in float32/);
    expect(onT4.weights.bytes).toBe(2 * onL4.weights.bytes);
  });

  it("takes bfloat16 on an L4 (8.9)", () => {
    const plan = planServe(LLAMA, gpu("L4"), { dtype: "bfloat16", maxModelLen: 4096 });
    expect(plan.verdict.kind).toBe("fits");
  });
});

describe("--block-size, an engine option the KV cache's pages follow", () => {
  it("128-token pages: the tokens are whole pages of 128, and the page is 8 times the default's", () => {
    const base = planServe(LLAMA, gpu("H100"), { maxModelLen: 8192 });
    const large = planServe(LLAMA, gpu("H100"), { maxModelLen: 8192, blockSize: 128 });
    expect(large.resolved.blockSize).toBe(128);
    expect(base.resolved.blockSize).toBe(16);
    const [group] = large.kvCache?.groups ?? [];
    expect(group?.spec.blockSize).toBe(128);
    expect(group?.spec.pageBytes).toBe(8 * (base.kvCache?.groups[0]?.spec.pageBytes ?? 0));
    expect((large.kvCache?.tokens ?? 1) % 128).toBe(0);
    expect(large.kvCache?.numBlocks).toBe(Math.floor((base.kvCache?.numBlocks ?? 0) / 8));
    expect(large.kvCache?.maxConcurrency).toBe((large.kvCache?.numBlocks ?? 0) / (8192 / 128));
  });
});

describe("a suggestion uses the GPUs given", () => {
  it("two T4s: tensor parallelism over both with a shorter context, before asking for more GPUs", () => {
    const plan = planServe(LLAMA, gpu("T4", 2));
    expect(plan.verdict).toMatchObject({ kind: "needs-tensor-parallel", tensorParallelSize: 2 });
    expect(plan.verdict.flags.slice(0, 3)).toEqual(["--tensor-parallel-size", "2", "--max-model-len"]);
    expect(plan.verdict.summary).toMatch(
      /^fits on the 2 GPUs given with tensor_parallel_size 2 and max_model_len <= \d+/,
    );
    const len = plan.verdict.kind === "needs-tensor-parallel" ? (plan.verdict.maxModelLen ?? 0) : 0;
    const followed = planServe(LLAMA, gpu("T4", 2), { tensorParallelSize: 2, maxModelLen: len });
    expect(followed.verdict.kind).toBe("fits");
  });

  it("one T4: needs more GPUs, and says how many", () => {
    const plan = planServe(LLAMA, gpu("T4", 1));
    expect(plan.verdict.kind).toBe("needs-tensor-parallel");
    expect(plan.verdict.summary).toMatch(/GPUs; 1 given\)/);
  });
});

describe("one verdict path for an architecture the plan cannot lay out", () => {
  it("weights too large for one GPU: the tensor-parallel size that holds them, as for any model", () => {
    const config = { ...(LLAMA.config as object), architectures: ["MambaForCausalLM"] };
    const plan = planServe({ config, weightsBytes: 30 * GIB }, gpu("L4", 2));
    expect(plan.verdict).toMatchObject({
      kind: "needs-tensor-parallel",
      tensorParallelSize: 2,
      flags: ["--tensor-parallel-size", "2"],
    });
    expect(plan.verdict.summary).toMatch(/whether the KV cache then holds a request is unknown/);
    expect(plan.cannotGive.join(" ")).toContain("LlamaForCausalLM");
  });
});
