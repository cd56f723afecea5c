// What usually ends a vLLM start early, recognised from its last log lines, with what to do about it.
const HINTS: { pattern: RegExp; hint: string }[] = [
  {
    pattern: /out of memory|OutOfMemoryError|No available memory for the cache blocks|not enough KV cache/i,
    hint:
      "out of GPU memory: try a smaller --max-model-len (after --), a lower --gpu-memory-utilization, " +
      "a quantized or smaller model, or more GPUs with --tensor-parallel-size",
  },
  {
    pattern: /LoRA rank \d+ is greater than max_lora_rank \d+/i,
    hint:
      "--max-lora-rank is too small for the adapter: pass --max-lora-rank with the adapter's r " +
      "(adapter_config.json) rounded up to 8, 16, 32, 64, 128, 256, 320 or 512",
  },
  {
    pattern:
      /GatedRepoError|gated repo|Access to model .* is restricted|401 Client Error|403 Client Error|Repository Not Found/i,
    hint:
      "the hub refused the repository: it is gated or private (or misspelt). Accept its licence on the hub, " +
      "then set HF_TOKEN or run `hf auth login`",
  },
  {
    pattern: /address already in use|Errno 98/i,
    hint: "the port is already taken: stop the other server or choose another --port",
  },
  {
    pattern: /No CUDA GPUs are available|Failed to infer device type|CUDA driver|NVIDIA driver/i,
    hint: "no usable NVIDIA GPU: check `nvidia-smi` (run `studio-serve doctor`)",
  },
];

/** Hints for the problems these log lines show, in the order above, each at most once. */
export function crashHints(lines: readonly string[]): string[] {
  const text = lines.join("\n");
  return HINTS.filter(({ pattern }) => pattern.test(text)).map(({ hint }) => hint);
}
