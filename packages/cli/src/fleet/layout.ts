import { MAX_FRONT_CONNECTIONS } from "@finetune-studio/serve-kit/internal";
import { inHelp, UsageError } from "../shared/io.js";
import type { ParsedServeArgs } from "../shared/serve-args.js";
import { wholeNumber } from "../shared/values.js";
import type { FleetLayout } from "./types.js";

/** More instances than one machine holds GPUs for is a typo. */
export const MAX_INSTANCES = 16;
const GPU_ID = /^(?:\d{1,3}|GPU-[0-9a-fA-F-]{8,64}|MIG-[0-9a-fA-F/-]{8,80})$/;

/**
 * `--instances N` (GPUs 0..N-1) or `--gpus 0,1,...` (one instance per GPU, by index or UUID); both must
 * agree. With neither, no GPUs: a launch of one, on the port clients call, in the environment's GPUs.
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
    return { gpus: [], runtimeLora, maxConnections: undefined };
  }
  let gpus: string[] | undefined;
  if (gpusText !== undefined) {
    gpus = gpusText.split(",");
    const bad = gpus.find((gpu) => !GPU_ID.test(gpu));
    if (bad !== undefined || gpus.length > MAX_INSTANCES || new Set(gpus).size !== gpus.length) {
      throw new UsageError(
        `--gpus: must list 1 to ${MAX_INSTANCES} different GPU indexes or UUIDs separated by commas (given ${JSON.stringify(gpusText.slice(0, 80))})`,
        helpFor,
      );
    }
  }
  if (instancesText !== undefined) {
    const count = inHelp(helpFor, () => wholeNumber(instancesText, "--instances", 1, MAX_INSTANCES));
    if (gpus !== undefined && gpus.length !== count) {
      throw new UsageError(`--instances: ${count} does not match the ${gpus.length} GPUs of --gpus`, helpFor);
    }
    gpus ??= Array.from({ length: count }, (_, i) => String(i));
  }
  return { gpus: gpus ?? [], runtimeLora, maxConnections };
}

/** `--max-connections N`: the front door's limit, within what HAProxy's configuration accepts. */
function parseMaxConnections(value: unknown, helpFor: string): number | undefined {
  if (value === undefined) return undefined;
  return inHelp(helpFor, () => wholeNumber(value, "--max-connections", 1, MAX_FRONT_CONNECTIONS));
}
