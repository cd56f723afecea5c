import type { ProcessGroup } from "@finetune-studio/internal";
import type { CliIo } from "../io.js";
import type { LaunchPlan } from "../launch/plan.js";
import type { Instance } from "./instance.js";

/** How a multi-instance launch runs: one instance per GPU, and whether adapters may change at runtime. */
export interface FleetLayout {
  gpus: string[];
  runtimeLora: boolean;
  /** The front door's connection limit (--max-connections), when the user set one. */
  maxConnections: number | undefined;
}

/** A rolling reload in progress: later triggers join it and hear the rest of its progress. */
export interface RunningReload {
  readonly done: Promise<boolean>;
  readonly listeners: Set<(line: string) => void>;
}

/** Everything a multi-instance launch holds while it runs. */
export interface Fleet {
  readonly plan: LaunchPlan;
  readonly io: CliIo;
  readonly dir: string;
  readonly instances: Instance[];
  /** HAProxy on the port clients know, and its runtime API socket, once it runs. */
  balancer: { group: ProcessGroup; socket: string } | undefined;
  /** Adapters loaded at runtime (name to path): a restarted instance gets them again. */
  readonly adapters: Map<string, string>;
  /** Aborted when launch stops: ends every wait. */
  readonly stop: AbortController;
  readonly apiKey: string | undefined;
  reloading: RunningReload | undefined;
  /** Records the process groups in the state file: called whenever one starts or stops. */
  saveState: () => void;
}
