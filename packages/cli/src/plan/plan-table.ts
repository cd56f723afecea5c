import type { PlanFigure, ServePlan } from "@finetune-studio/serve-kit";

const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(2)} GiB`;

type Row = (label: string, value: string, note?: string) => string;

/**
 * The KV cache's memory, never a negative figure: when the weights and the start-up profile take more than
 * vLLM's share of the GPU, there is no room (vLLM stops before it lays out a block), and the rows say by how
 * much and what would make room.
 */
function kvMemoryRows(plan: ServePlan, row: Row, estimate: string): string[] {
  const signed = plan.availableKvMemory.signedBytes;
  if (signed > 0) return [row("KV cache memory", estimate + gib(signed), '"Available KV cache memory"')];
  const share = plan.resolved.gpuMemoryUtilization;
  return [
    row(
      "KV cache memory",
      "no room",
      `the weights and the start-up profile take ${estimate}${gib(-signed)} more than gpu_memory_utilization ${share} of the GPU`,
    ),
    `  room would come from: more GPUs (--tensor-parallel-size), a quantized checkpoint, a smaller --max-num-batched-tokens or --max-num-seqs, or a higher --gpu-memory-utilization (${share} now)`,
  ];
}

/** The plan as a short table: each figure, the vLLM line it predicts, and the verdict with its flags. */
export function formatPlan(plan: ServePlan, model: string): string {
  const row = (label: string, value: string, note = "") =>
    `  ${label.padEnd(26)}${value.padStart(14)}  ${note}`.trimEnd();
  const est = (figure: PlanFigure) => (figure.estimate ? "~" : "");
  const gpu = `${plan.gpu.name ?? "GPU"} × ${plan.gpu.count} (${gib(plan.gpu.memoryBytes)} each)`;
  const kv = plan.kvCache;
  const lines = [
    `studio-serve plan: ${model} on ${gpu}`,
    `  rules follow vLLM ${plan.vllmCommit.slice(0, 12)}; ~ marks an estimate`,
    "",
    row("weights per GPU", est(plan.weights) + gib(plan.weights.bytes), '"Model loading took X GiB"'),
    row("activation peak", est(plan.activationPeak) + gib(plan.activationPeak.bytes)),
    row("non-torch memory", est(plan.nonTorchMemory) + gib(plan.nonTorchMemory.bytes)),
    ...kvMemoryRows(plan, row, est(plan.availableKvMemory)),
  ];
  if (kv && plan.availableKvMemory.signedBytes > 0) {
    lines.push(
      row("KV bytes per token", `${kv.bytesPerToken}`),
      row("KV cache tokens", kv.tokens.toLocaleString("en-US"), '"GPU KV cache size: N tokens"'),
      row(
        `concurrency at ${plan.resolved.maxModelLen}`,
        `${kv.maxConcurrency.toFixed(2)}x`,
        '"Maximum concurrency for L tokens per request"',
      ),
    );
  }
  if (plan.lora)
    lines.push(
      row("LoRA slots per GPU", gib(plan.lora.gpuBytes)),
      row("LoRA CPU cache (host)", gib(plan.lora.cpuBytes)),
    );
  lines.push(row("CUDA graphs (headroom)", est(plan.cudaGraphMemory) + gib(plan.cudaGraphMemory.bytes)));
  for (const text of [...plan.cannotGive, ...plan.notes]) lines.push(`  note: ${text}`);
  lines.push("", `verdict: ${plan.verdict.summary}`);
  if (plan.verdict.flags.length > 0) lines.push(`pass: ${plan.verdict.flags.join(" ")}`);
  return `${lines.join("\n")}\n`;
}
