import { findGpuModel, GPU_MODELS, type PlanGpu, type PlanSettings } from "@finetune-studio/serve-kit";
import { ENABLE_LORA_FLAG, GPU_COUNT_FLAG, GPU_FLAG, GPU_MEMORY_FLAG } from "../shared/common-flags.js";
import { engineValues } from "../shared/engine-flags.js";
import { declaredValue, type FlagReader } from "../shared/flags.js";
import { inHelp, UsageError } from "../shared/io.js";
import { queryNvidiaSmi } from "./nvidia-smi.js";

const SIZE = /^(\d+(?:\.\d+)?)\s*(GiB|GB|MiB|MB)$/i;
const UNIT: Record<string, number> = { gib: 1024 ** 3, gb: 1e9, mib: 1024 ** 2, mb: 1e6 };

/** The GPU from --gpu or --gpu-memory, else nvidia-smi's first GPU; undefined when none can be known. */
export async function resolvePlanGpu(
  flags: FlagReader,
  env: NodeJS.ProcessEnv,
  helpFor: string,
): Promise<PlanGpu | undefined> {
  const count = inHelp(helpFor, () => declaredValue(flags, GPU_COUNT_FLAG));
  const name = declaredValue(flags, GPU_FLAG);
  const memory = declaredValue(flags, GPU_MEMORY_FLAG);
  if (name !== undefined) {
    const model = findGpuModel(name);
    if (!model) {
      throw new UsageError(
        `--gpu: unknown GPU ${JSON.stringify(name)}; known: ${GPU_MODELS.map((gpu) => gpu.name).join(", ")} (or give --gpu-memory)`,
        helpFor,
      );
    }
    return {
      name: model.name,
      memoryBytes: model.memoryBytes,
      computeCapability: model.computeCapability,
      ...(count ? { count } : {}),
    };
  }
  if (memory !== undefined) {
    const match = SIZE.exec(memory.trim());
    if (!match)
      throw new UsageError(
        `--gpu-memory: must be a size such as 80GiB or 24GB (given ${JSON.stringify(memory)})`,
        helpFor,
      );
    const bytes = Math.round(Number(match[1]) * (UNIT[(match[2] as string).toLowerCase()] ?? 1));
    if (bytes < 1024 ** 3)
      throw new UsageError(`--gpu-memory: must be at least 1GiB (given ${JSON.stringify(memory)})`, helpFor);
    return { memoryBytes: bytes, ...(count ? { count } : {}) };
  }
  const smi = await queryNvidiaSmi(env);
  const first = smi?.[0];
  if (!first) return undefined;
  const known = findGpuModel(first.name);
  return {
    name: first.name,
    memoryBytes: first.memoryBytes,
    count: count ?? smi.length,
    ...(known ? { computeCapability: known.computeCapability } : {}),
  };
}

/** How a command asks for the GPU: the answer of resolvePlanGpu, got once however often it is asked. */
export type GpuSource = () => Promise<PlanGpu | undefined>;

/** resolvePlanGpu asked at most once: launch's fit check and its front door both need the GPU, and nvidia-smi is slow. */
export function gpuAskedOnce(flags: FlagReader, env: NodeJS.ProcessEnv, helpFor: string): GpuSource {
  let gpu: Promise<PlanGpu | undefined> | undefined;
  return () => (gpu ??= resolvePlanGpu(flags, env, helpFor));
}

/** --tensor-parallel-size shards across GPUs that must be there: checked in the flags' words. */
export function checkGpusForSettings(gpu: PlanGpu, settings: PlanSettings, helpFor: string): void {
  const tp = settings.tensorParallelSize;
  if (gpu.count === undefined || typeof tp !== "number" || tp <= gpu.count) return;
  throw new UsageError(
    `--tensor-parallel-size: ${tp} is more than the ${gpu.count} GPUs available; give --gpu-count ${tp} to plan for more`,
    helpFor,
  );
}

/**
 * The plan's settings from the vLLM flags given, read through serve-kit's engine-option table as `command`
 * reads them; values stay raw so serve-kit's rules name what is wrong. LoRA is on with --enable-lora, with a
 * LoRA-only flag, or for a LoRA serve.
 */
export function planSettingsFrom(flags: FlagReader, helpFor: string, lora = false): PlanSettings {
  const engine = engineValues(flags, "lora", helpFor) as PlanSettings;
  return lora || declaredValue(flags, ENABLE_LORA_FLAG) === true ? { ...engine, enableLora: true } : engine;
}
