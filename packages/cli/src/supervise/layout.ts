import type { RoutingPolicy } from "@finetune-studio/serve-kit";
import {
  checkRoutingPolicy,
  checkSessionHeader,
  MAX_FRONT_CONNECTIONS,
} from "@finetune-studio/serve-kit/internal";
import { inHelp, UsageError } from "../shared/io.js";
import type { ParsedServeArgs } from "../shared/serve-args.js";
import { quoted, wholeNumber } from "../shared/values.js";
import type { FleetLayout } from "./types.js";

/**
 * Session routing costs nothing for a request without the session header (it goes least-busy, as before)
 * and keeps a conversation on the instance whose prefix cache holds it for callers that send one; prefix
 * routing buffers every request body in HAProxy to read its key, so it is asked for, not given.
 */
export const LAUNCH_DEFAULT_ROUTING: RoutingPolicy = "session";

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
  const routing = parseRouting(values.routing, values["session-header"], helpFor);
  if (instancesText === undefined && gpusText === undefined) {
    // A launch of one has no HAProxy: nothing would read these.
    const frontDoorFlags = { "max-connections": "limit", routing: "routing", "session-header": "routing" };
    for (const [flag, what] of Object.entries(frontDoorFlags)) {
      if (values[flag] !== undefined) {
        throw new UsageError(`--${flag}: sets HAProxy's ${what}, so it needs --instances or --gpus`, helpFor);
      }
    }
    return { gpus: [], gpusFlag: "--instances", runtimeLora, maxConnections: undefined, routing };
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
  return { gpus: groups, gpusFlag, runtimeLora, maxConnections, routing };
}

/**
 * `--routing` (default session: see the README's "Routing") and `--session-header`, by serve-kit's rules
 * (their refusals name the field, which the CLI reports as the flag); a header with least-busy is refused,
 * as haproxyConfig would, but before anything starts.
 */
function parseRouting(policy: unknown, header: unknown, helpFor: string): FleetLayout["routing"] {
  const routing: RoutingPolicy =
    policy === undefined ? LAUNCH_DEFAULT_ROUTING : checkRoutingPolicy(policy, "routing");
  const sessionHeader = header === undefined ? undefined : checkSessionHeader(header, "sessionHeader");
  if (routing === "least-busy" && sessionHeader !== undefined) {
    throw new UsageError(
      `--session-header: applies to --routing session or prefix; least-busy reads no header (given ${quoted(sessionHeader)})`,
      helpFor,
    );
  }
  return { policy: routing, sessionHeader };
}

/** `--max-connections N`: the front door's limit, within what HAProxy's configuration accepts. */
function parseMaxConnections(value: unknown, helpFor: string): number | undefined {
  if (value === undefined) return undefined;
  return inHelp(helpFor, () => wholeNumber(value, "--max-connections", 1, MAX_FRONT_CONNECTIONS));
}
