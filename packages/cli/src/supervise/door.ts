import type { ChildExit } from "@finetune-studio/internal";
import type { ServerState } from "./haproxy-runtime.js";
import type { Instance, InstanceHooks, Slot } from "./instance.js";

/**
 * Where clients reach a launch's instances: HAProxy in front of them (haproxy-door.ts), or the one
 * instance's own port (direct-door.ts). It is everything in which a launch of one and a fleet differ; the
 * supervisor (supervisor.ts) runs both by the same path and never asks which it has.
 */
export interface Door {
  /** How messages name what launch runs: "vLLM", "HAProxy and its 2 vLLM instances". */
  describe(instances: number): string;
  /** Where the instances run at the start. */
  readonly slots: readonly Slot[];
  /** Slot `index` on `gpu` (for an instance added at run time); undefined when the door has no room for it. */
  slotFor(index: number, gpu: string): Slot | undefined;
  /** The instance of a slot. */
  instanceFor(slot: Slot, hooks: InstanceHooks): Instance;
  /** Checks before anything starts (HAProxy on PATH, the GPUs); launch's exit code when one fails. */
  check(): Promise<number | undefined>;
  /** Once the runtime directory is launch's (a killed launch's processes are stopped): its ports are free. */
  checkPorts(): Promise<number | undefined>;
  /** Says what is about to start. */
  announceStart(instances: readonly Instance[]): void;
  /**
   * Once every instance serves on its own port: opens the door to clients (HAProxy started, listening, and
   * answering a one-token completion). Launch's exit code when it cannot. `spawned` is told once its process
   * group runs (to record it), `ended` with launch's exit code if that process dies.
   */
  open(stop: AbortSignal, hooks: DoorHooks): Promise<number | undefined>;
  /** Says the launch is ready, and how to use and stop it. `seconds`: what the slowest instance took. */
  announceReady(seconds: number): void;
  /** The balancer's run-time control, when there is one: only then can an instance drain. */
  readonly balancer: Balancer | undefined;
  /** The process group of the door's own process (HAProxy), for the state file. */
  readonly pgid: number | undefined;
  /** The port on 127.0.0.1 of the balancer's own Prometheus metrics. */
  readonly metricsPort: number | undefined;
  /** Closes the door gracefully (HAProxy finishes what it has), before the instances stop. */
  close(graceMs: number): Promise<void>;
  /** SIGKILL to the door's process now (a second Ctrl-C). */
  kill(): void;
  /** Launch's exit code once a stop signal stopped it: `code` as run, or (alone) its vLLM's own. */
  exitCodeAfterStop(code: number, exits: readonly (ChildExit | undefined)[]): number;
  /** Launch's exit code when its last serving instance exited on its own with `exit`. */
  exitCodeWhenNoneLeft(exit: ChildExit): number;
}

export interface DoorHooks {
  spawned(): void;
  ended(code: number): void;
}

/** The balancer's run-time control of one instance (by its index), never a reload of the balancer. */
export interface Balancer {
  set(index: number, state: ServerState): Promise<void>;
  /** Requests the instance is serving or holds in its queue. */
  openRequests(index: number): Promise<number>;
  /** Requests the balancer holds for a free slot on any instance (the autoscaler counts them as waiting). */
  queued(): Promise<number>;
}
