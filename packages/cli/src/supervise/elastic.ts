import type { GpuSource } from "../plan/plan-input.js";
import type { CliIo } from "../shared/io.js";
import type { ParsedServeArgs } from "../shared/serve-args.js";
import { Autoscaler } from "./autoscaler.js";
import { freeGpuGroups, type GpuPool } from "./free-gpus.js";
import { instanceBatch } from "./front-door-limit.js";
import type { Scaler, Supervisor } from "./supervisor.js";
import type { FleetLayout } from "./types.js";

/** What an elastic launch changes in a fleet's start: vLLM's argv and environment, its GPUs, its scaler. */
export interface ElasticStart {
  parsed: ParsedServeArgs;
  extraEnv: NodeJS.ProcessEnv;
  layout: FleetLayout;
  scaler: ((supervisor: Supervisor) => Scaler) | undefined;
}

/**
 * For `--instances MIN..MAX`: with `--idle sleep`, vLLM's sleep mode on (its argv and dev mode); the first MIN
 * instances placed on free GPUs (a fine-tuning job keeps its GPUs from the start, too); and the autoscaler.
 * A fixed fleet or a launch of one is given back as it is.
 */
export async function elasticStart(
  parsed: ParsedServeArgs,
  layout: FleetLayout,
  io: CliIo,
  planGpu: GpuSource,
): Promise<ElasticStart> {
  const scaling = layout.scaling;
  if (scaling === undefined) return { parsed, extraEnv: {}, layout, scaler: undefined };
  const sleepy = scaling.idle === "sleep";
  const fallback = layout.gpus.flatMap((group) => group.split(","));
  const pool: GpuPool = {
    listed: layout.gpusFlag === "--gpus" ? fallback : undefined,
    fallback,
    perInstance: layout.gpus[0]?.split(",").length ?? 1,
  };
  const batch = await instanceBatch(parsed, planGpu);
  return {
    parsed: sleepy ? withSleepMode(parsed) : parsed,
    // vLLM's /sleep and /wake_up exist only in its dev mode; the front door keeps them from callers.
    extraEnv: sleepy ? { VLLM_SERVER_DEV_MODE: "1" } : {},
    layout: { ...layout, gpus: await freeFirst(layout.gpus, pool, scaling.min, io) },
    scaler: (supervisor) => new Autoscaler(supervisor, scaling, pool, batch),
  };
}

/**
 * The fleet's GPU groups with the free ones first, so its first MIN instances start where no other process
 * holds memory; as they are when nvidia-smi cannot tell. With fewer than MIN free, it warns and starts them
 * anyway (vLLM then says whether the memory left is enough).
 */
async function freeFirst(
  groups: readonly string[],
  pool: GpuPool,
  min: number,
  io: CliIo,
): Promise<string[]> {
  const { free, unchecked } = await freeGpuGroups(pool, [], io);
  if (unchecked) return [...groups];
  if (free.length < min) {
    io.err(
      `studio-serve: warning: ${free.length} GPU groups hold no other process's memory; ${min} instances start now\n`,
    );
  }
  return [...free, ...groups.filter((group) => !free.includes(group))].slice(0, groups.length);
}

/** vLLM's argv with `--enable-sleep-mode` (once), so a drained instance can sleep instead of stopping. */
function withSleepMode(parsed: ParsedServeArgs): ParsedServeArgs {
  const extraArgs = parsed.options.extraArgs ?? [];
  if (extraArgs.includes("--enable-sleep-mode")) return parsed;
  return { ...parsed, options: { ...parsed.options, extraArgs: [...extraArgs, "--enable-sleep-mode"] } };
}
