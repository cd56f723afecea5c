import type { CliIo } from "../shared/io.js";
import { listGpuIds } from "../shared/nvidia-smi.js";

/**
 * The GPUs `nvidia-smi -L` lists (index and UUID), or undefined when it is not on PATH or does not answer
 * within 10 s (then launch warns and goes on: vLLM itself will say what is wrong).
 */
export async function listGpus(io: CliIo): Promise<{ index: string; uuid: string }[] | undefined> {
  const answer = await listGpuIds(io.env);
  return answer.kind === "listed" ? answer.gpus : undefined;
}

/** Which of the asked GPUs this machine does not have; undefined when it cannot tell. */
export async function missingGpus(asked: readonly string[], io: CliIo): Promise<string[] | undefined> {
  const gpus = await listGpus(io);
  if (gpus === undefined) return undefined;
  return asked.filter(
    (gpu) => !gpus.some((known) => known.index === gpu || known.uuid === gpu) && !gpu.startsWith("MIG-"),
  );
}
