import {
  connectionsWithinFileLimit,
  defaultMaxConnections,
  vllmDefaultOf,
} from "@finetune-studio/serve-kit/internal";
import type { GpuSource } from "../plan/plan-input.js";
import { type CliIo, UsageError } from "../shared/io.js";
import type { ParsedServeArgs } from "../shared/serve-args.js";
import { hardOpenFileLimit } from "./file-limit.js";
import type { FleetLayout } from "./types.js";

/**
 * How many requests each instance runs at once, and so the most HAProxy sends it: --max-num-seqs, else
 * vLLM's default for the GPU (--gpu or --gpu-memory, else nvidia-smi's), which is 256 on an A100 or a GPU
 * under 70 GiB. A GPU that cannot be told gets the larger default: HAProxy then never holds back a request
 * an instance would batch.
 */
export async function instanceBatch(parsed: ParsedServeArgs, planGpu: GpuSource): Promise<number> {
  const given = parsed.options.maxNumSeqs;
  if (typeof given === "number") return given;
  return vllmDefaultOf("maxNumSeqs", await planGpu()) as number;
}

/**
 * The front door's connection limit: --max-connections, or four times what the instances batch together;
 * either way within what the open-file limit lets HAProxy hold (a default is lowered to fit, with a note;
 * a chosen value above it is refused, since HAProxy would refuse to start).
 */
export function frontDoorLimit(layout: FleetLayout, maxNumSeqs: number, io: CliIo, helpFor: string): number {
  const instances = layout.gpus.length;
  const fileLimit = hardOpenFileLimit();
  const fits =
    fileLimit === undefined ? Number.POSITIVE_INFINITY : connectionsWithinFileLimit(fileLimit, instances);
  if (layout.maxConnections !== undefined) {
    if (layout.maxConnections > fits) {
      throw new UsageError(
        `--max-connections: HAProxy can hold at most ${fits} connections under this machine's open-file limit of ${fileLimit} (ulimit -Hn); given ${layout.maxConnections}`,
        helpFor,
      );
    }
    return layout.maxConnections;
  }
  const wanted = defaultMaxConnections(instances, maxNumSeqs);
  if (wanted <= fits) return wanted;
  io.err(
    `studio-serve: note: HAProxy holds at most ${fits} connections here, not ${wanted}: the open-file limit is ${fileLimit} (raise it with ulimit -Hn, or set --max-num-seqs)\n`,
  );
  return fits;
}
