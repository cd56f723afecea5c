import type { RoutingPolicy } from "@finetune-studio/serve-kit";
import type { ScaleSignals, ScalingRange } from "@finetune-studio/serve-kit/internal";
import type { LaunchSettings } from "../instance/launch-settings.js";
import type { IdleAction, ScaleRuleName } from "../shared/autoscale-flags.js";
import type { CliIo } from "../shared/io.js";
import type { Instance } from "./instance.js";

/**
 * How a launch runs: one instance per GPU behind HAProxy, or (with no GPUs listed) one instance on the port
 * clients call, with no balancer; and whether adapters may change at runtime.
 */
export interface FleetLayout {
  /**
   * Each instance's GPUs, as its CUDA_VISIBLE_DEVICES ("0" or, with tensor parallelism, "0,1"), disjoint;
   * empty for a launch of one without --instances or --gpus.
   */
  gpus: string[];
  /** The flag the GPUs came from, as the user typed it, for messages about them. */
  gpusFlag: "--gpus" | "--instances";
  runtimeLora: boolean;
  /** The front door's connection limit (--max-connections), when the user set one. */
  maxConnections: number | undefined;
  /** How HAProxy picks an instance (--routing), and the header that names a session (--session-header). */
  routing: { policy: RoutingPolicy; sessionHeader: string | undefined };
  /**
   * With `--instances MIN..MAX`: the autoscaler's settings. `gpus` then holds MAX instances' GPUs, of which
   * MIN start; undefined for a fixed fleet or a launch of one.
   */
  scaling: AutoscaleSettings | undefined;
}

/**
 * An elastic fleet: MIN..MAX, the thresholds it grows past, its scale-down window (the HPA's stabilization
 * window with the hpa rule), what idle means and the rule that decides.
 */
export interface AutoscaleSettings extends ScalingRange {
  signals: ScaleSignals;
  downAfterMs: number;
  idle: IdleAction;
  rule: ScaleRuleName;
}

/** A rolling reload in progress: later triggers join it and hear the rest of its progress. */
export interface RunningReload {
  readonly done: Promise<boolean>;
  readonly listeners: Set<(line: string) => void>;
}

/** What the adapter operations read of a running launch (the Supervisor is one). */
export interface Fleet {
  readonly plan: LaunchSettings;
  readonly io: CliIo;
  readonly dir: string;
  readonly instances: readonly Instance[];
  /** Adapters loaded at runtime (name to path): a restarted instance gets them again. */
  readonly adapters: Map<string, string>;
  readonly apiKey: string | undefined;
}
