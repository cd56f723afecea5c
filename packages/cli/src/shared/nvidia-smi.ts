// The one reader of nvidia-smi: `plan` (which GPU), `launch` (which GPUs exist) and `doctor` (free memory)
// all ask through it, so it is found, bounded and parsed the same way everywhere.
import { execFile } from "node:child_process";
import { findExecutable } from "./which.js";

export type SmiAnswer<T> =
  | { kind: "missing" }
  | { kind: "failed"; reason: string }
  | { kind: "listed"; gpus: T[] };

/** One GPU's memory as `--query-gpu=name,memory.free,memory.total` reports it, in MiB. */
export interface SmiGpuMemory {
  name: string;
  freeMiB: number;
  totalMiB: number;
}

/**
 * Runs nvidia-smi (looked up on PATH's absolute directories only) with a time and output bound; never
 * throws: not on PATH is `missing`, an error or a timeout is `failed` with its first line.
 */
async function runNvidiaSmi(args: string[], env: NodeJS.ProcessEnv, timeoutMs: number) {
  const smi = await findExecutable("nvidia-smi", env.PATH);
  if (smi === undefined) return { kind: "missing" } as const;
  return await new Promise<{ kind: "failed"; reason: string } | { kind: "ok"; text: string }>((resolve) => {
    execFile(
      smi,
      args,
      { env, timeout: timeoutMs, maxBuffer: 256 * 1024, encoding: "utf8" },
      (error, stdout, stderr) => {
        if (!error) resolve({ kind: "ok", text: stdout });
        else resolve({ kind: "failed", reason: `${stdout}${stderr}`.trim().split("\n")[0] || error.message });
      },
    );
  });
}

/** Each GPU's name and memory; what nvidia-smi does not answer within 10 s counts as failed. */
export async function queryGpuMemory(env: NodeJS.ProcessEnv): Promise<SmiAnswer<SmiGpuMemory>> {
  const answer = await runNvidiaSmi(
    ["--query-gpu=name,memory.free,memory.total", "--format=csv,noheader,nounits"],
    env,
    10_000,
  );
  return answer.kind === "ok" ? { kind: "listed", gpus: parseGpuMemory(answer.text) } : answer;
}

/** Reads `name, free, total` lines (a name may hold commas); lines that do not read so are skipped. */
export function parseGpuMemory(output: string): SmiGpuMemory[] {
  return output
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .flatMap((line) => {
      const parts = line.split(",").map((part) => part.trim());
      const [name, free, total] = [parts.slice(0, -2).join(","), Number(parts.at(-2)), Number(parts.at(-1))];
      return name !== "" && Number.isFinite(free) && Number.isFinite(total)
        ? [{ name, freeMiB: free, totalMiB: total }]
        : [];
    });
}

/** The GPUs `nvidia-smi -L` lists, by index and UUID. */
export async function listGpuIds(
  env: NodeJS.ProcessEnv,
): Promise<SmiAnswer<{ index: string; uuid: string }>> {
  const answer = await runNvidiaSmi(["-L"], env, 10_000);
  if (answer.kind !== "ok") return answer;
  const gpus = [...answer.text.matchAll(/^GPU (\d+):.*\(UUID: (GPU-[0-9a-fA-F-]+)\)/gm)].map((match) => ({
    index: match[1] ?? "",
    uuid: match[2] ?? "",
  }));
  return { kind: "listed", gpus };
}

/**
 * The GPUs (by UUID) on which a process holds memory: `--query-compute-apps`, one row per process (a
 * fine-tuning job, another launch, this launch's own vLLM). A GPU none of them uses is free to start on.
 */
export async function listBusyGpuUuids(env: NodeJS.ProcessEnv): Promise<SmiAnswer<string>> {
  const answer = await runNvidiaSmi(["--query-compute-apps=gpu_uuid", "--format=csv,noheader"], env, 10_000);
  if (answer.kind !== "ok") return answer;
  const uuids = answer.text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => /^GPU-[0-9a-fA-F-]+$/.test(line));
  return { kind: "listed", gpus: [...new Set(uuids)] };
}
