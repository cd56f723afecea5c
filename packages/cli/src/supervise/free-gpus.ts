import type { CliIo } from "../shared/io.js";
import { listBusyGpuUuids, listGpuIds } from "../shared/nvidia-smi.js";

/** Where an elastic fleet may start instances: its GPUs, and how many each instance takes. */
export interface GpuPool {
  /** The GPUs of --gpus, in order; undefined: any GPU of the machine (nvidia-smi -L), by index. */
  listed: readonly string[] | undefined;
  /** Without nvidia-smi: the GPUs `--instances MAX` would take (0..MAX*T-1). */
  fallback: readonly string[];
  /** GPUs per instance (--tensor-parallel-size). */
  perInstance: number;
}

/**
 * GPU groups (an instance's CUDA_VISIBLE_DEVICES, "2" or "2,3") an elastic fleet may start an instance on
 * now: among its pool, GPUs this launch does not hold and on which no process holds memory (nvidia-smi's
 * compute apps), so a fine-tuning job on the same machine keeps its GPUs; taken T at a time in order. When
 * nvidia-smi cannot tell, `unchecked` says so and only what the launch holds is left out.
 */
export async function freeGpuGroups(
  pool: GpuPool,
  held: readonly string[],
  io: CliIo,
): Promise<{ free: string[]; unchecked: boolean }> {
  const heldGpus = new Set(held.flatMap((group) => group.split(",")));
  const [ids, busy] = await Promise.all([listGpuIds(io.env), listBusyGpuUuids(io.env)]);
  if (ids.kind !== "listed" || busy.kind !== "listed") {
    const free = (pool.listed ?? pool.fallback).filter((gpu) => !heldGpus.has(gpu));
    return { free: groupsOf(free, pool.perInstance), unchecked: true };
  }
  const candidates = pool.listed ?? ids.gpus.map((gpu) => gpu.index);
  const used = (gpu: string) =>
    busy.gpus.includes(gpu) ||
    ids.gpus.some((known) => known.index === gpu && busy.gpus.includes(known.uuid));
  const free = candidates.filter((gpu) => !heldGpus.has(gpu) && !used(gpu));
  return { free: groupsOf(free, pool.perInstance), unchecked: false };
}

/** Whole groups of `size`, in order; what is left over makes no instance. */
function groupsOf(gpus: readonly string[], size: number): string[] {
  const groups: string[] = [];
  for (let at = 0; at + size <= gpus.length; at += size) groups.push(gpus.slice(at, at + size).join(","));
  return groups;
}
