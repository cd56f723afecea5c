import { DEFAULT_SCALE_SIGNALS, type RoutingPolicy } from "@finetune-studio/serve-kit";
import {
  checkRoutingPolicy,
  checkSessionHeader,
  DEFAULT_SCALE_DOWN_AFTER_SECONDS,
  isElastic,
  type ScalingRange,
} from "@finetune-studio/serve-kit/internal";
import {
  AUTOSCALE_FLAGS,
  IDLE_FLAG,
  SCALE_DOWN_AFTER_FLAG,
  SCALE_ON_FLAG,
  SCALE_RULE_FLAG,
} from "../shared/autoscale-flags.js";
import {
  GPUS_FLAG,
  INSTANCES_FLAG,
  MAX_CONNECTIONS_FLAG,
  MAX_INSTANCES,
  RUNTIME_LORA_FLAG,
} from "../shared/instance-flags.js";
import { inHelp, UsageError } from "../shared/io.js";
import { ROUTING_FLAG, SESSION_HEADER_FLAG } from "../shared/routing-flags.js";
import type { ParsedServeArgs } from "../shared/serve-args.js";
import { quoted } from "../shared/values.js";
import type { AutoscaleSettings, FleetLayout } from "./types.js";

/**
 * Session routing costs nothing for a request without the session header (it goes least-busy, as before)
 * and keeps a conversation on the instance whose prefix cache holds it for callers that send one; prefix
 * routing buffers every request body in HAProxy to read its key, so it is asked for, not given.
 */
export const LAUNCH_DEFAULT_ROUTING: RoutingPolicy = "session";

/** The flags only HAProxy reads, and what each sets: a launch of one has no HAProxy. */
const FRONT_DOOR_FLAGS = [
  [MAX_CONNECTIONS_FLAG, "limit"],
  [ROUTING_FLAG, "routing"],
  [SESSION_HEADER_FLAG, "routing"],
] as const;

/**
 * `--instances N` (GPUs 0..N*T-1) or `--gpus 0,1,...` (by index or UUID); both must agree. Each instance
 * gets T = --tensor-parallel-size GPUs of its own, disjoint and in the order given, since vLLM shards the
 * model over every GPU it sees and refuses a tensor parallel size above their count. With neither flag, no
 * GPUs: a launch of one, on the port clients call, in the environment's GPUs. Each flag's own rule is in
 * its declaration (shared/instance-flags.ts); what is checked here is how they agree.
 */
export function parseLayout(parsed: ParsedServeArgs): FleetLayout {
  const helpFor = `launch ${parsed.kind}`;
  const runtimeLora = parsed.get(RUNTIME_LORA_FLAG);
  // vLLM runs a full model without --enable-lora, and its /v1/load_lora_adapter then refuses every adapter.
  if (runtimeLora && parsed.kind === "full")
    throw new UsageError(
      "--runtime-lora: vLLM serves a full model without LoRA, so no adapter could ever load; use launch lora BASE --adapter NAME=PATH --runtime-lora",
      helpFor,
    );
  const { range, listed, maxConnections } = inHelp(helpFor, () => ({
    range: parsed.get(INSTANCES_FLAG),
    listed: parsed.get(GPUS_FLAG),
    maxConnections: parsed.get(MAX_CONNECTIONS_FLAG),
  }));
  const routing = parseRouting(parsed.get(ROUTING_FLAG), parsed.get(SESSION_HEADER_FLAG), helpFor);
  const scaling = parseScaling(parsed, range, helpFor);
  // A range holds slots (GPUs, ports, HAProxy servers) for its MAX; a fixed fleet's MIN is its MAX.
  const instances = range?.max;
  if (instances === undefined && listed === undefined) {
    for (const [flag, what] of FRONT_DOOR_FLAGS) {
      if (parsed.given(flag)) {
        throw new UsageError(
          `--${flag.name}: sets HAProxy's ${what}, so it needs --instances or --gpus`,
          helpFor,
        );
      }
    }
    return { gpus: [], gpusFlag: "--instances", runtimeLora, maxConnections: undefined, routing, scaling };
  }
  // A bad value is the builder's to refuse, by its rule, before anything starts.
  const tp = parsed.options.tensorParallelSize;
  const perInstance = typeof tp === "number" && Number.isInteger(tp) && tp >= 1 ? tp : 1;
  const tpNote = perInstance === 1 ? "" : ` of --tensor-parallel-size ${perInstance}`;
  if (listed !== undefined && listed.length % perInstance !== 0) {
    throw new UsageError(
      `--gpus: ${listed.length} GPUs do not make whole instances${tpNote} (each instance takes ${perInstance})`,
      helpFor,
    );
  }
  const count = instances ?? (listed?.length ?? 0) / perInstance;
  if (instances !== undefined && listed !== undefined && listed.length !== count * perInstance) {
    throw new UsageError(
      perInstance === 1
        ? `--instances: ${count} does not match the ${listed.length} GPUs of --gpus`
        : `--instances: ${count} instances${tpNote} need ${count * perInstance} GPUs; --gpus lists ${listed.length}`,
      helpFor,
    );
  }
  if (count > MAX_INSTANCES) {
    throw new UsageError(`--gpus: makes ${count} instances; at most ${MAX_INSTANCES}`, helpFor);
  }
  const all = listed ?? Array.from({ length: count * perInstance }, (_, i) => String(i));
  const groups = Array.from({ length: count }, (_, i) =>
    all.slice(i * perInstance, (i + 1) * perInstance).join(","),
  );
  const gpusFlag = listed === undefined ? "--instances" : "--gpus";
  return { gpus: groups, gpusFlag, runtimeLora, maxConnections, routing, scaling };
}

/**
 * An elastic fleet's settings, with `--instances MIN..MAX`; undefined for a fixed one, which takes none of
 * the scaling flags (refused, naming the flag, so a typo in the range is not silently a fixed fleet).
 */
function parseScaling(
  parsed: ParsedServeArgs,
  range: ScalingRange | undefined,
  helpFor: string,
): AutoscaleSettings | undefined {
  if (range === undefined || !isElastic(range)) {
    const given = AUTOSCALE_FLAGS.find((flag) => parsed.given(flag));
    if (given !== undefined) {
      const fixed = range === undefined ? "" : ` (given --instances ${range.min}, a fixed fleet)`;
      throw new UsageError(`--${given.name}: needs a range --instances MIN..MAX${fixed}`, helpFor);
    }
    return undefined;
  }
  return inHelp(helpFor, () => {
    const rule = parsed.get(SCALE_RULE_FLAG) ?? "window";
    // production-stack's KEDA default scales on the queue alone; kv is played only when asked for.
    const defaults = rule === "hpa" ? { queue: DEFAULT_SCALE_SIGNALS.queue } : { ...DEFAULT_SCALE_SIGNALS };
    return {
      ...range,
      signals: parsed.get(SCALE_ON_FLAG) ?? defaults,
      downAfterMs: (parsed.get(SCALE_DOWN_AFTER_FLAG) ?? DEFAULT_SCALE_DOWN_AFTER_SECONDS) * 1000,
      idle: parsed.get(IDLE_FLAG) ?? "stop",
      rule,
    };
  });
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
