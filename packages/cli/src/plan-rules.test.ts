import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { getFreePort } from "@finetune-studio/testing";
import { afterAll, describe, expect, it } from "vitest";
import { runCapture } from "./test/run-cli.js";

// `studio-serve plan` as a script sees it: vLLM's start-up checks as verdicts naming the flag, exit codes that
// keep a verdict apart from an error, and local paths that never go to the hub.

const fixture = (name: string) =>
  fileURLToPath(new URL(`../../serve-kit/src/plan/fixtures/${name}`, import.meta.url));
const LLAMA = fixture("llama-3.1-8b-instruct");
const NO_GPU_ENV = { PATH: "/nonexistent" };
const empty = mkdtempSync(join(tmpdir(), "plan-rules-"));
afterAll(() => rmSync(empty, { recursive: true, force: true }));

/** An environment whose hub is a closed port on this machine: a request to it fails at once. */
const closedHub = async () => ({ ...NO_GPU_ENV, HF_ENDPOINT: `http://127.0.0.1:${await getFreePort()}` });

describe("plan follows vLLM's start-up checks, naming the flag that fixes them (exit 1)", () => {
  it.each([
    [
      "--tensor-parallel-size 3 on a 32-head model",
      ["--gpu", "H100", "--gpu-count", "4", "--tensor-parallel-size", "3"],
      /32 attention heads: not divisible by 3/,
      "--tensor-parallel-size 2",
    ],
    [
      "--max-model-len 200000 on a 131072-position model",
      ["--gpu", "H100", "--max-model-len", "200000"],
      /max_model_len 200000 is more than the model's 131072.*VLLM_ALLOW_LONG_MAX_MODEL_LEN=1/,
      "--max-model-len 131072",
    ],
    [
      "--quantization awq on a bfloat16 checkpoint",
      ["--gpu", "H100", "--quantization", "awq"],
      /--quantization awq needs a checkpoint quantized with it/,
      null,
    ],
    [
      "--dtype bfloat16 on a T4 (compute capability 7.5)",
      ["--gpu", "T4", "--gpu-count", "4", "--tensor-parallel-size", "4", "--dtype", "bfloat16"],
      /--dtype bfloat16 needs a GPU of compute capability 8\.0 or more, and the T4 has 7\.5/,
      "--dtype float16",
    ],
  ])("refuses %s", async (_, flags, reason, fix) => {
    const { code, stdout } = await runCapture(["plan", LLAMA, ...flags], NO_GPU_ENV);
    expect(code).toBe(1);
    expect(stdout).toMatch(/verdict: vLLM would refuse to start: /);
    expect(stdout).toMatch(reason);
    if (fix) expect(stdout).toContain(`pass: ${fix}`);
  });

  it("Qwen2.5-7B: 8 and 7 GPUs are refused (heads; KV heads and MLP), and the size named, 4, fits", async () => {
    const qwen = fixture("qwen2.5-7b-instruct");
    const eight = await runCapture(
      ["plan", qwen, "--gpu", "H100", "--gpu-count", "8", "--tensor-parallel-size", "8"],
      NO_GPU_ENV,
    );
    expect(eight.code).toBe(1);
    expect(eight.stdout).toMatch(/28 attention heads: not divisible by 8/);
    expect(eight.stdout).toContain("pass: --tensor-parallel-size 4");
    const seven = await runCapture(
      ["plan", qwen, "--gpu", "H100", "--gpu-count", "7", "--tensor-parallel-size", "7"],
      NO_GPU_ENV,
    );
    expect(seven.code).toBe(1);
    expect(seven.stdout).toMatch(
      /4 KV heads: 7 is not a multiple of them.*18944 MLP width \(intermediate_size\): not divisible by 7/,
    );
    const four = await runCapture(
      ["plan", qwen, "--gpu", "H100", "--gpu-count", "8", "--tensor-parallel-size", "4"],
      NO_GPU_ENV,
    );
    expect(four.code, four.stdout).toBe(0);
  });

  it("command's fit check warns, and --strict refuses, with the same start-up check", async () => {
    const args = [
      "command",
      "full",
      LLAMA,
      "--gpu",
      "L4",
      "--max-model-len",
      "4096",
      "--quantization",
      "awq",
    ];
    const warned = await runCapture(args, NO_GPU_ENV);
    expect(warned.code).toBe(0);
    expect(warned.stderr).toMatch(
      /warning: .*vLLM would refuse to start: --quantization awq needs a checkpoint/,
    );
    const strict = await runCapture([...args, "--strict"], NO_GPU_ENV);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toBe("");
  });

  it("honours VLLM_ALLOW_LONG_MAX_MODEL_LEN from the environment, as vLLM does", async () => {
    const { code, stdout } = await runCapture(["plan", LLAMA, "--gpu", "H100", "--max-model-len", "200000"], {
      ...NO_GPU_ENV,
      VLLM_ALLOW_LONG_MAX_MODEL_LEN: "1",
    });
    expect(code).toBe(0);
    expect(stdout).toMatch(/note: .*VLLM_ALLOW_LONG_MAX_MODEL_LEN is set/);
  });

  it("two T4s: suggests tensor parallelism over both with a shorter context, not more GPUs", async () => {
    const { code, stdout } = await runCapture(["plan", LLAMA, "--gpu", "T4", "--gpu-count", "2"], NO_GPU_ENV);
    expect(code).toBe(1);
    expect(stdout).toMatch(
      /verdict: fits on the 2 GPUs given with tensor_parallel_size 2 and max_model_len <= \d+/,
    );
    const flags = /pass: (--tensor-parallel-size 2 --max-model-len \d+)/.exec(stdout)?.[1]?.split(" ") ?? [];
    expect(flags).toHaveLength(4);
    const followed = await runCapture(
      ["plan", LLAMA, "--gpu", "T4", "--gpu-count", "2", ...flags],
      NO_GPU_ENV,
    );
    expect(followed.code).toBe(0);
  });
});

describe("--quantization and --block-size are engine options: plan and command read the same rule", () => {
  it.each([
    ["plan", LLAMA, "--gpu", "L4"],
    ["command", "full", LLAMA],
  ])("%s refuses --quantization bogus with vLLM's list (exit 2)", async (...args) => {
    const { code, stderr } = await runCapture([...args, "--quantization", "bogus"], NO_GPU_ENV);
    expect(code).toBe(2);
    expect(stderr).toMatch(/--quantization: must be one of awq, fp8, .*bitsandbytes.*\(given "bogus"\)/);
  });

  it("--block-size 128 reaches vllm serve and the plan's pages", async () => {
    const command = await runCapture(["command", "full", LLAMA, "--block-size", "128"], NO_GPU_ENV);
    expect(command.code, command.stderr).toBe(0);
    expect(command.stdout).toContain("--block-size 128");
    const plan = await runCapture(
      ["plan", LLAMA, "--gpu", "H100", "--block-size", "128", "--json"],
      NO_GPU_ENV,
    );
    const parsed = JSON.parse(plan.stdout);
    expect(parsed.resolved.blockSize).toBe(128);
    expect(parsed.kvCache.tokens % 128).toBe(0);
    const bad = await runCapture(["plan", LLAMA, "--gpu", "H100", "--block-size", "24"], NO_GPU_ENV);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--block-size: must be one of 1, 8, 16, 32, 64, 128, 256/);
  });

  it("help lines give vLLM's defaults from the table", async () => {
    const { stdout } = await runCapture(["command", "--help"], NO_GPU_ENV);
    expect(stdout).toMatch(
      /--gpu-memory-utilization F\s+share of each GPU's memory vLLM may use, 0 to 1 \(vLLM: 0\.9\)/,
    );
    expect(stdout).toMatch(
      /--max-num-seqs N\s+sequences in one batch at most \(vLLM: 1024 on GPUs of 70 GiB or more/,
    );
    expect(stdout).toMatch(/--block-size N\s+tokens in one KV-cache page: .* \(vLLM: 16\)/);
  });
});

describe("exit codes a script can trust: a verdict never shares one with an error", () => {
  it("a local directory without config.json: refused about that path, the hub never asked (exit 4)", async () => {
    const { code, stderr } = await runCapture(["plan", empty, "--gpu", "L4"], await closedHub());
    expect(code).toBe(4);
    expect(stderr).toContain(`${empty}: a directory without config.json`);
    expect(stderr).not.toMatch(/hub/);
  });

  it("a relative path whose first component exists here: local, refused about that path (exit 4)", async () => {
    // The tests run in the package's directory, which holds src/.
    const { code, stderr } = await runCapture(["plan", "src/typo", "--gpu", "L4"], await closedHub());
    expect(code).toBe(4);
    expect(stderr).toMatch(/src\/typo: no such file or directory here/);
    expect(stderr).not.toMatch(/could not reach/);
    const dotted = await runCapture(["plan", "./typo", "--gpu", "L4"], await closedHub());
    expect(dotted.code).toBe(4);
    expect(dotted.stderr).toMatch(/\.\/typo: no such file or directory here/);
  });

  it("a hub that cannot be reached: exit 4, not the 1 of 'does not fit'", async () => {
    const { code, stderr } = await runCapture(["plan", "org/model", "--gpu", "L4"], await closedHub());
    expect(code).toBe(4);
    expect(stderr).toMatch(/could not reach the hub/);
  });

  it("bad flags in the flags' words: --gpu-memory below 1GiB, more tensor-parallel GPUs than --gpu-count (exit 2)", async () => {
    const small = await runCapture(["plan", LLAMA, "--gpu-memory", "512MiB"], NO_GPU_ENV);
    expect(small.code).toBe(2);
    expect(small.stderr).toMatch(/--gpu-memory: must be at least 1GiB \(given "512MiB"\)/);
    expect(small.stderr).not.toContain("memoryBytes");
    const many = await runCapture(
      ["plan", LLAMA, "--gpu", "L4", "--gpu-count", "2", "--tensor-parallel-size", "4"],
      NO_GPU_ENV,
    );
    expect(many.code).toBe(2);
    expect(many.stderr).toMatch(
      /--tensor-parallel-size: 4 is more than the 2 GPUs available; give --gpu-count 4/,
    );
  });

  it("--gpus means one thing: launch's list of GPUs; plan counts them with --gpu-count", async () => {
    const listed = await runCapture(["plan", LLAMA, "--gpu", "L4", "--gpus", "2"], NO_GPU_ENV);
    expect(listed.code).toBe(2);
    expect(listed.stderr).toMatch(/unknown option "--gpus"/);
    const help = await runCapture(["plan", "--help"]);
    expect(help.stdout).toMatch(/--gpu-count N/);
    expect(help.stdout).not.toMatch(/--gpus\b/);
  });

  it("command's fit check names a setting by its flag when it skips", async () => {
    const smi = mkdtempSync(join(tmpdir(), "plan-rules-smi-"));
    try {
      // An nvidia-smi stand-in reporting two L4s: the fit check plans for the GPUs it lists.
      writeFileSync(
        join(smi, "nvidia-smi"),
        "#!/bin/sh\necho 'NVIDIA L4, 23034, 23034'\necho 'NVIDIA L4, 23034, 23034'\n",
        {
          mode: 0o755,
        },
      );
      const { stderr } = await runCapture(["command", "full", LLAMA, "--tensor-parallel-size", "4"], {
        PATH: smi,
      });
      expect(stderr).toMatch(
        /fit check skipped: --tensor-parallel-size: must not exceed the GPUs available \(2\)/,
      );
    } finally {
      rmSync(smi, { recursive: true, force: true });
    }
  });

  it("plan --help lists them", async () => {
    const { code, stdout } = await runCapture(["plan", "--help"], NO_GPU_ENV);
    expect(code).toBe(0);
    expect(stdout).toMatch(/Exit codes:\n {2}0 +it fits/);
    expect(stdout).toMatch(/\n {2}1 +it does not fit, or vLLM would refuse these settings/);
    expect(stdout).toMatch(/\n {2}2 +bad arguments/);
    expect(stdout).toMatch(/\n {2}4 +the model's files could not be read/);
  });
});
