import { execFile } from "node:child_process";
import type { CliIo } from "../shared/io.js";
import { findExecutable } from "../shared/which.js";

/**
 * The GPUs `nvidia-smi -L` lists (index and UUID), or undefined when it is not on PATH or does not answer
 * within 10 s (then launch warns and goes on: vLLM itself will say what is wrong).
 */
export async function listGpus(io: CliIo): Promise<{ index: string; uuid: string }[] | undefined> {
  const smi = await findExecutable("nvidia-smi", io.env.PATH);
  if (smi === undefined) return undefined;
  const text = await new Promise<string | undefined>((resolve) => {
    execFile(smi, ["-L"], { timeout: 10_000, maxBuffer: 256 * 1024, env: io.env }, (error, stdout) =>
      resolve(error ? undefined : stdout),
    );
  });
  if (text === undefined) return undefined;
  return [...text.matchAll(/^GPU (\d+):.*\(UUID: (GPU-[0-9a-fA-F-]+)\)/gm)].map((match) => ({
    index: match[1] ?? "",
    uuid: match[2] ?? "",
  }));
}

/** Which of the asked GPUs this machine does not have; undefined when it cannot tell. */
export async function missingGpus(asked: readonly string[], io: CliIo): Promise<string[] | undefined> {
  const gpus = await listGpus(io);
  if (gpus === undefined) return undefined;
  return asked.filter(
    (gpu) => !gpus.some((known) => known.index === gpu || known.uuid === gpu) && !gpu.startsWith("MIG-"),
  );
}
