import { MAX_FRONT_CONNECTIONS } from "@finetune-studio/serve-kit/internal";
import { inHelp, UsageError } from "../shared/io.js";
import type { ParsedServeArgs } from "../shared/serve-args.js";
import { wholeNumber } from "../shared/values.js";
import type { FleetLayout } from "./types.js";

/** More instances than one machine holds GPUs for is a typo. */
export const MAX_INSTANCES = 16;
/** GPUs one launch spreads its instances over, tensor parallelism included. */
const MAX_GPUS = 64;
const GPU_ID = /^(?:\d{1,3}|GPU-[0-9a-fA-F-]{8,64}|MIG-[0-9a-fA-F/-]{8,80})$/;

/**
 * `--instances N` (GPUs 0..N*T-1) or `--gpus 0,1,...` (by index or UUID); both must agree. Each instance
 * gets T = --tensor-parallel-size GPUs of its own, disjoint and in the order given, since vLLM shards the
 * model over every GPU it sees and refuses a tensor parallel size above their count. With neither flag, no
 * GPUs: a launch of one, on the port clients call, in the environment's GPUs.
 */
export function parseLayout(parsed: ParsedServeArgs): FleetLayout {
  const { values } = parsed;
  const helpFor = `launch ${parsed.kind}`;
  const runtimeLora = values["runtime-lora"] === true;
  const instancesText = values.instances as string | undefined;
  const gpusText = values.gpus as string | undefined;
  const maxConnections = parseMaxConnections(values["max-connections"], helpFor);
  if (instancesText === undefined && gpusText === undefined) {
    if (maxConnections !== undefined) {
      throw new UsageError(
        "--max-connections: sets HAProxy's limit, so it needs --instances or --gpus",
        helpFor,
      );
    }
    return { gpus: [], gpusFlag: "--instances", runtimeLora, maxConnections: undefined };
  }
  // A bad value is the builder's to refuse, by its rule, before anything starts.
  const tp = parsed.options.tensorParallelSize;
  const perInstance = typeof tp === "number" && Number.isInteger(tp) && tp >= 1 ? tp : 1;
  const tpNote = perInstance === 1 ? "" : ` of --tensor-parallel-size ${perInstance}`;
  let gpus: string[] | undefined;
  if (gpusText !== undefined) {
    gpus = gpusText.split(",");
    const bad = gpus.find((gpu) => !GPU_ID.test(gpu));
    if (bad !== undefined || gpus.length > MAX_GPUS || new Set(gpus).size !== gpus.length) {
      throw new UsageError(
        `--gpus: must list 1 to ${MAX_GPUS} different GPU indexes or UUIDs separated by commas (given ${JSON.stringify(gpusText.slice(0, 80))})`,
        helpFor,
      );
    }
    if (gpus.length % perInstance !== 0) {
      throw new UsageError(
        `--gpus: ${gpus.length} GPUs do not make whole instances${tpNote} (each instance takes ${perInstance})`,
        helpFor,
      );
    }
  }
  let count = (gpus?.length ?? 0) / perInstance;
  if (instancesText !== undefined) {
    count = inHelp(helpFor, () => wholeNumber(instancesText, "--instances", 1, MAX_INSTANCES));
    if (gpus !== undefined && gpus.length !== count * perInstance) {
      throw new UsageError(
        perInstance === 1
          ? `--instances: ${count} does not match the ${gpus.length} GPUs of --gpus`
          : `--instances: ${count} instances${tpNote} need ${count * perInstance} GPUs; --gpus lists ${gpus.length}`,
        helpFor,
      );
    }
    gpus ??= Array.from({ length: count * perInstance }, (_, i) => String(i));
  }
  if (count > MAX_INSTANCES) {
    throw new UsageError(`--gpus: makes ${count} instances; at most ${MAX_INSTANCES}`, helpFor);
  }
  const all = gpus ?? [];
  const groups = Array.from({ length: count }, (_, i) =>
    all.slice(i * perInstance, (i + 1) * perInstance).join(","),
  );
  const gpusFlag = gpusText === undefined ? "--instances" : "--gpus";
  return { gpus: groups, gpusFlag, runtimeLora, maxConnections };
}

/** `--max-connections N`: the front door's limit, within what HAProxy's configuration accepts. */
function parseMaxConnections(value: unknown, helpFor: string): number | undefined {
  if (value === undefined) return undefined;
  return inHelp(helpFor, () => wholeNumber(value, "--max-connections", 1, MAX_FRONT_CONNECTIONS));
}
