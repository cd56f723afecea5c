import { queryGpuMemory } from "../shared/nvidia-smi.js";

/** One GPU as the plan needs it. */
export interface SmiGpu {
  name: string;
  memoryBytes: number;
}

/** The GPUs nvidia-smi lists, or undefined when it is not on PATH, fails, or lists none. */
export async function queryNvidiaSmi(env: NodeJS.ProcessEnv): Promise<SmiGpu[] | undefined> {
  const answer = await queryGpuMemory(env);
  if (answer.kind !== "listed" || answer.gpus.length === 0) return undefined;
  return answer.gpus.map((gpu) => ({ name: gpu.name, memoryBytes: gpu.totalMiB * 1024 ** 2 }));
}
