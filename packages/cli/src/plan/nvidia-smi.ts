import { execFile } from "node:child_process";
import { findExecutable } from "../shared/which.js";

/** One GPU as nvidia-smi reports it. */
export interface SmiGpu {
  name: string;
  memoryBytes: number;
}

/** The GPUs nvidia-smi lists, or undefined when it is not on PATH or fails (within 5 s). */
export async function queryNvidiaSmi(env: NodeJS.ProcessEnv): Promise<SmiGpu[] | undefined> {
  const smi = await findExecutable("nvidia-smi", env.PATH);
  if (!smi) return undefined;
  const text = await new Promise<string | undefined>((resolve) => {
    execFile(
      smi,
      ["--query-gpu=name,memory.total", "--format=csv,noheader,nounits"],
      { timeout: 5000, maxBuffer: 64 * 1024, env },
      (error, stdout) => resolve(error ? undefined : stdout),
    );
  });
  if (text === undefined) return undefined;
  const gpus = parseNvidiaSmi(text);
  return gpus.length > 0 ? gpus : undefined;
}

/** Parses `name, MiB` lines; lines that do not read so are skipped. */
export function parseNvidiaSmi(text: string): SmiGpu[] {
  return text.split("\n").flatMap((line) => {
    const match = /^(.+?),\s*(\d+)\s*$/.exec(line.trim());
    return match ? [{ name: match[1] as string, memoryBytes: Number(match[2]) * 1024 ** 2 }] : [];
  });
}
