import type { PlanFigure, ServePlan } from "@finetune-studio/serve-kit";

const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(2)} GiB`;

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
    row(
      "KV cache memory",
      est(plan.availableKvMemory) + gib(plan.availableKvMemory.signedBytes),
      '"Available KV cache memory"',
    ),
  ];
  if (kv) {
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
