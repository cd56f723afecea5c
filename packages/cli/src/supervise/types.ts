import type { ProcessGroup } from "@finetune-studio/internal";
import type { RoutingPolicy } from "@finetune-studio/serve-kit";
import type { LaunchSettings } from "../instance/launch-settings.js";
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
}

/** A rolling reload in progress: later triggers join it and hear the rest of its progress. */
export interface RunningReload {
  readonly done: Promise<boolean>;
  readonly listeners: Set<(line: string) => void>;
}

/** Everything a multi-instance launch holds while it runs. */
export interface Fleet {
  readonly plan: LaunchSettings;
  readonly io: CliIo;
  readonly dir: string;
  readonly instances: Instance[];
  /** HAProxy on the port clients know, and its runtime API socket, once it runs. */
  balancer: { group: ProcessGroup; socket: string } | undefined;
  /** The port on 127.0.0.1 of HAProxy's own Prometheus metrics; none for a launch of one. */
  readonly metricsPort: number | undefined;
  /** Adapters loaded at runtime (name to path): a restarted instance gets them again. */
  readonly adapters: Map<string, string>;
  /** Aborted when launch stops: ends every wait. */
  readonly stop: AbortController;
  readonly apiKey: string | undefined;
  reloading: RunningReload | undefined;
  /** The first stop signal launch got, if any: vLLM gets SIGINT for a Ctrl-C, else SIGTERM. */
  stopSignal: NodeJS.Signals | undefined;
  /** A launch of one: vLLM's exit code once it exited on its own. */
  exitCode: number | undefined;
  /** Records the process groups in the state file: called whenever one starts or stops. */
  saveState: () => void;
}
