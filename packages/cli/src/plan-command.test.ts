import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runCapture } from "./test/run-cli.js";

// The serve-kit fixtures are real models' config.json and trimmed index: a local model directory each.
const fixture = (name: string) =>
  fileURLToPath(new URL(`../../serve-kit/src/plan/fixtures/${name}`, import.meta.url));
const NO_GPU_ENV = { PATH: "/nonexistent" };

describe("studio-serve plan", () => {
  it("prints the figures and a fitting verdict for Llama 3.1 8B on an H100", async () => {
    const { code, stdout } = await runCapture(
      ["plan", fixture("llama-3.1-8b-instruct"), "--gpu", "H100"],
      NO_GPU_ENV,
    );
    expect(code).toBe(0);
    expect(stdout).toContain('"Model loading took X GiB"');
    expect(stdout).toContain("GPU KV cache size");
    expect(stdout).toMatch(/verdict: fits: 131072 tokens per request/);
  });

  it("names the flag that makes it fit, and exits 1, on an L4", async () => {
    const { code, stdout } = await runCapture(
      ["plan", fixture("llama-3.1-8b-instruct"), "--gpu", "L4"],
      NO_GPU_ENV,
    );
    expect(code).toBe(1);
    expect(stdout).toMatch(/pass: --max-model-len \d+/);
  });

  it("never prints a negative KV figure: Mixtral 8x7B on one H100 has no room, by how much, and what would make room", async () => {
    const { code, stdout } = await runCapture(
      ["plan", fixture("mixtral-8x7b-v0.1"), "--gpu", "H100"],
      NO_GPU_ENV,
    );
    expect(code).toBe(1);
    expect(stdout).not.toMatch(/-\d+\.\d+ GiB/);
    expect(stdout).toMatch(
      /KV cache memory +no room +the weights and the start-up profile take ~\d+\.\d\d GiB more than gpu_memory_utilization 0\.9 of the GPU/,
    );
    expect(stdout).toMatch(
      /room would come from: more GPUs \(--tensor-parallel-size\), a quantized checkpoint/,
    );
    expect(stdout).not.toContain("KV cache tokens");
  });

  it("takes --max-model-len with vLLM's suffixes (8k = 8000, 8K = 8192), and command passes vLLM the number", async () => {
    const model = fixture("llama-3.1-8b-instruct");
    const planned = await runCapture(
      ["plan", model, "--gpu", "H100", "--max-model-len", "8K", "--json"],
      NO_GPU_ENV,
    );
    expect(planned.code, planned.stderr).toBe(0);
    expect(JSON.parse(planned.stdout).resolved.maxModelLen).toBe(8192);
    const command = await runCapture(["command", "full", model, "--max-model-len", "8k"], NO_GPU_ENV);
    expect(command.code, command.stderr).toBe(0);
    expect(command.stdout).toContain("--max-model-len 8000");
    const refused = await runCapture(["plan", model, "--gpu", "H100", "--max-model-len", "8.5K"], NO_GPU_ENV);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /--max-model-len: must be a whole number of tokens .*8k = 8000, 8K = 8192.* \(given "8\.5K"\)/,
    );
  });

  it("--json gives the whole plan", async () => {
    const { stdout } = await runCapture(
      [
        "plan",
        fixture("mixtral-8x7b-v0.1"),
        "--gpu-memory",
        "80GiB",
        "--gpu-count",
        "2",
        "--tensor-parallel-size",
        "2",
        "--json",
      ],
      NO_GPU_ENV,
    );
    const plan = JSON.parse(stdout);
    expect(plan.verdict.kind).toBe("fits");
    expect(plan.resolved.tensorParallelSize).toBe(2);
  });

  it.each([
    [["plan", "--gpu", "H100"], /missing MODEL/],
    [["plan", "x", "--gpu", "Voodoo"], /--gpu: unknown GPU "Voodoo"; known: H200/],
    [["plan", "x", "--gpu-memory", "lots"], /--gpu-memory: must be a size such as 80GiB/],
    [["plan", "x"], /no GPU found: nvidia-smi is not here/],
    [["plan", "x", "y", "--gpu", "H100"], /unexpected argument "y"/],
    [
      ["plan", "x", "--gpu", "H100", "--gpu-count", "0"],
      /--gpu-count: must be a whole number of GPUs from 1 to 1024 \(given "0"\) \(see studio-serve plan --help\)/,
    ],
  ])("refuses %j", async (args, message) => {
    const { code, stderr } = await runCapture(args, NO_GPU_ENV);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });

  it("a bad engine value is named by serve-kit's rule", async () => {
    const { code, stderr } = await runCapture(
      ["plan", fixture("llama-2-7b-hf"), "--gpu", "L4", "--gpu-memory-utilization", "2"],
      NO_GPU_ENV,
    );
    expect(code).toBe(2);
    expect(stderr).toMatch(/--gpu-memory-utilization: must be a number above 0 and at most 1/);
  });
});

describe("the fit check before command and launch", () => {
  it("command warns on stderr and still prints the command when a local model will not fit", async () => {
    const { code, stdout, stderr } = await runCapture(
      ["command", "full", fixture("llama-3.1-8b-instruct"), "--gpu", "L4"],
      NO_GPU_ENV,
    );
    expect(code).toBe(0);
    expect(stdout).toContain("vllm serve");
    expect(stderr).toMatch(/warning: .* fits only with max_model_len <= \d+.*pass --max-model-len \d+/);
  });

  it("takes --gpu-memory as plan does, for a GPU not in the table; with --gpu, one of the two", async () => {
    const model = fixture("llama-3.1-8b-instruct");
    const warned = await runCapture(["command", "full", model, "--gpu-memory", "24GB"], NO_GPU_ENV);
    expect(warned.code).toBe(0);
    expect(warned.stderr).toMatch(/warning: .* fits only with max_model_len <= \d+/);
    const refused = await runCapture(
      ["launch", "full", model, "--gpu-memory", "24GB", "--strict"],
      NO_GPU_ENV,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/refusing: /);
    const both = await runCapture(
      ["command", "full", model, "--gpu", "L4", "--gpu-memory", "24GB"],
      NO_GPU_ENV,
    );
    expect(both.code).toBe(2);
    expect(both.stderr).toBe(
      "studio-serve: --gpu and --gpu-memory: give one (see studio-serve command full --help)\n",
    );
  });

  it("--strict refuses instead", async () => {
    const { code, stdout, stderr } = await runCapture(
      ["command", "full", fixture("llama-3.1-8b-instruct"), "--gpu", "L4", "--strict"],
      NO_GPU_ENV,
    );
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/refusing: /);
  });

  it("sees --kv-cache-dtype, an engine option: an fp8 KV cache holds the context a 16-bit one cannot", async () => {
    const args = [
      "command",
      "full",
      fixture("llama-3.1-8b-instruct"),
      "--gpu",
      "L4",
      "--max-model-len",
      "49152",
    ];
    const sixteenBit = await runCapture(args, NO_GPU_ENV);
    expect(sixteenBit.stderr).toMatch(/warning: .* fits only with max_model_len <= \d+/);
    const fp8 = await runCapture([...args, "--kv-cache-dtype", "fp8", "--strict"], NO_GPU_ENV);
    expect(fp8.code, fp8.stderr).toBe(0);
    expect(fp8.stderr).not.toMatch(/fit/);
    expect(fp8.stdout).toContain("--max-model-len 49152 --kv-cache-dtype fp8");
  });

  it("plans a LoRA serve with its adapter slots, as plan --max-loras does", async () => {
    const base = fixture("llama-3.1-8b-instruct");
    const lora = ["lora", base, "--adapter", "a=/adapters/a", "--max-loras", "4", "--max-lora-rank", "64"];
    const tightLen = ["--gpu", "A10G", "--max-model-len", "24000"];
    const full = await runCapture(["command", "full", base, ...tightLen], NO_GPU_ENV);
    expect(full.stderr).not.toMatch(/fit/);
    const served = await runCapture(["command", ...lora, ...tightLen], NO_GPU_ENV);
    expect(served.stderr).toMatch(/warning: .* fits only with max_model_len <= \d+/);
    const planned = await runCapture(
      ["plan", base, "--max-loras", "4", "--max-lora-rank", "64", ...tightLen, "--json"],
      NO_GPU_ENV,
    );
    expect(JSON.parse(planned.stdout).lora.gpuBytes).toBeGreaterThan(0);
    expect(served.stderr).toContain(JSON.parse(planned.stdout).verdict.summary);
  });

  it("says nothing when it fits, or when no GPU is known", async () => {
    const fits = await runCapture(
      ["command", "full", fixture("llama-3.1-8b-instruct"), "--gpu", "H100"],
      NO_GPU_ENV,
    );
    expect(fits.stderr).not.toMatch(/warning: .*fit/);
    const unknown = await runCapture(["command", "full", fixture("llama-3.1-8b-instruct")], NO_GPU_ENV);
    expect(unknown.stderr).not.toMatch(/fit/);
  });
});
