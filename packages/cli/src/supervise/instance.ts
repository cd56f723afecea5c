import { type ChildExit, exitCodeOf } from "@finetune-studio/internal";
import type { LaunchEvent } from "../instance/events.js";
import { type LaunchSettings, readLaunchSettings } from "../instance/launch-settings.js";
import type { Prepared } from "../instance/preflight.js";
import { smokeCompletion } from "../instance/smoke.js";
import { type RunningVllm, startVllm } from "../instance/vllm-process.js";
import type { CliIo } from "../shared/io.js";
import type { ParsedServeArgs } from "../shared/serve-args.js";
import { type StartOutcome, type StartSetup, untilServing } from "./instance-start.js";
import { type InstanceState, LifeCycle } from "./life-cycle.js";

/** What the supervisor hears from an instance. */
export interface InstanceHooks {
  /** Its state changed, or its process group did: launch records both in its state file. */
  changed(): void;
  /** vLLM exited on its own (no stop was asked) after the instance served. */
  exited(instance: Instance, exit: ChildExit): void;
}

/** Where an instance runs: its GPUs (CUDA_VISIBLE_DEVICES) and the port it listens on. */
export interface Slot {
  readonly index: number;
  /** Its GPUs, or undefined for a launch of one, which takes the environment's. */
  readonly gpu: string | undefined;
  readonly port: number;
}

/**
 * One vLLM instance of a launch, with its life cycle (life-cycle.ts): it moves only by the moves allowed
 * there, and each run's ending (stopped, crashed) is written to the event log once.
 */
export class Instance implements StartSetup {
  readonly index: number;
  readonly gpu: string | undefined;
  readonly plan: LaunchSettings;
  /** Its io: in a fleet, its lines prefixed with its name, CUDA_VISIBLE_DEVICES set; the runtime-LoRA switch. */
  readonly io: CliIo;
  /** How messages name it: "" for a launch of one, "instance 0 (port 8001): " in a fleet. */
  readonly label: string;
  readonly #life: LifeCycle;
  readonly #hooks: InstanceHooks;
  #vllm: RunningVllm | undefined;
  #prepared: Prepared | undefined;
  /** This run's ending is in the event log already: nothing more is written for it. */
  #recorded = false;
  /** A stop was asked for this run: its exit is expected. */
  #stopAsked = false;
  /** The process whose exit is watched (once, though it serves again after a sleep). */
  #watched: RunningVllm | undefined;

  constructor(slot: Slot, plan: LaunchSettings, io: CliIo, label: string, hooks: InstanceHooks) {
    this.index = slot.index;
    this.gpu = slot.gpu;
    this.plan = plan;
    this.io = io;
    this.label = label;
    this.#hooks = hooks;
    this.#life = new LifeCycle(this.name, () => hooks.changed());
  }

  /** Its name in a sentence: "vLLM" for a launch of one, "instance 0 (port 8001)" in a fleet. */
  get name(): string {
    return this.label === "" ? "vLLM" : this.label.replace(/: $/, "");
  }

  get state(): InstanceState {
    return this.#life.state;
  }

  get port(): number {
    return this.plan.built.listen.port;
  }

  /** Its vLLM process group, or undefined when none was started yet. */
  get pgid(): number | undefined {
    return this.#vllm?.group.pgid;
  }

  /**
   * stopped → starting: preflight, vLLM in its own process group, ready once /health, /v1/models and a
   * one-token completion answer (instance-start.ts). A failed start is recorded in the event log and stays
   * `starting` until `stop`: the caller stops what is left.
   */
  async start(stop: AbortSignal): Promise<StartOutcome> {
    this.#life.to("starting");
    this.#recorded = false;
    this.#stopAsked = false;
    const result = await untilServing(this, stop, (prepared) => this.#spawn(prepared));
    if (typeof result === "object" && result.event !== undefined) this.record(result.event);
    return result;
  }

  #spawn(prepared: Prepared): RunningVllm {
    this.#prepared = prepared;
    this.#vllm = startVllm(this.plan, prepared, this.io);
    // Each group is on record as soon as it runs: a launch killed while it loads leaves nothing unknown.
    this.#hooks.changed();
    return this.#vllm;
  }

  /**
   * starting → serving (the front door sends it requests now), serving → draining, draining → asleep.
   * From serving on, an exit nobody asked for is reported to the supervisor.
   */
  moveTo(next: "serving" | "draining" | "asleep"): void {
    this.#life.to(next);
    if (next === "serving") this.#watch();
  }

  #watch(): void {
    const vllm = this.#vllm;
    if (vllm === this.#watched) return;
    this.#watched = vllm;
    void vllm?.exited.then((exit) => {
      if (this.#vllm === vllm && !this.#stopAsked && this.state !== "stopped") this.#hooks.exited(this, exit);
    });
  }

  /**
   * draining → asleep: vLLM's sleep mode, level 1 (`POST /sleep?level=1`, a dev-mode route): its weights go
   * to host memory and its GPU memory is freed; the process stays. Throws with vLLM's answer if it refuses.
   */
  async sleep(signal: AbortSignal): Promise<void> {
    await postDevRoute(this.plan.built.client.rootURL, "/sleep?level=1", signal);
    this.#life.to("asleep");
  }

  /**
   * asleep → starting: `POST /wake_up`, then a one-token completion on its own port, so it is admitted only
   * once it answers again. Throws (it stays starting; the caller stops it) when either fails.
   */
  async wake(signal: AbortSignal): Promise<void> {
    this.#life.to("starting");
    await postDevRoute(this.plan.built.client.rootURL, "/wake_up", signal);
    await smokeCompletion(this.plan.chat, this.plan.built.client.model, signal);
  }

  /** vLLM exited on its own: the ending the supervisor chose is recorded, and the instance is stopped. */
  endedOnItsOwn(event: LaunchEvent & { event: "stopped" | "crashed" }): void {
    this.record(event);
    if (this.state !== "stopped") this.#life.to("stopped");
  }

  /** vLLM's last lines (for a crash report). */
  lastLines(): readonly string[] {
    return this.#vllm?.recent.lines() ?? [];
  }

  /** Writes `event` to the event log; a stopped or crashed one ends this run's record. */
  record(event: LaunchEvent): void {
    this.#prepared?.events.write(event);
    if (event.event === "stopped" || event.event === "crashed") this.#recorded = true;
  }

  /**
   * Any state → stopped: the whole process group gets `signal`, the grace, KILL, and the run is recorded as
   * `stopped` with `reason` and vLLM's exit code, unless its ending is on record already. Resolves with how
   * vLLM's main process ended, or undefined when it never ran.
   */
  async stop(reason: string, signal: NodeJS.Signals = "SIGTERM"): Promise<ChildExit | undefined> {
    const vllm = this.#vllm;
    this.#stopAsked = true;
    if (vllm !== undefined) {
      await vllm.shutDown(signal);
      const exit = await vllm.exited;
      if (!this.#recorded) this.record({ event: "stopped", reason, exitCode: exitCodeOf(exit) });
    }
    if (this.state !== "stopped") this.#life.to("stopped");
    return vllm === undefined ? undefined : await vllm.exited;
  }

  /** SIGKILL to its process group now (a second Ctrl-C); a stop under way ends at once. */
  kill(): void {
    this.#vllm?.group.kill();
  }
}

/** A sleep or a wake copies the weights between GPU and host memory: seconds, minutes for a large model. */
const DEV_ROUTE_TIMEOUT_MS = 300_000;
/** What is kept of a refusal's body, for the message. */
const MAX_REFUSAL_BYTES = 2048;

/** POSTs one of vLLM's dev-mode routes on an instance's own (loopback) port; throws unless it answers 200. */
async function postDevRoute(root: string, path: string, signal: AbortSignal): Promise<void> {
  const deadline = AbortSignal.any([signal, AbortSignal.timeout(DEV_ROUTE_TIMEOUT_MS)]);
  const response = await fetch(`${root}${path}`, { method: "POST", redirect: "error", signal: deadline });
  const body = await boundedText(response);
  if (response.status !== 200) {
    const said = body.trim().split("\n")[0] ?? "";
    throw new Error(
      `POST ${path} answered ${response.status}${said === "" ? "" : `: ${said.slice(0, 200)}`}`,
    );
  }
}

async function boundedText(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (reader === undefined) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < MAX_REFUSAL_BYTES) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.length;
  }
  await reader.cancel().catch(() => {});
  return Buffer.concat(chunks).toString("utf8").slice(0, MAX_REFUSAL_BYTES);
}

/**
 * The instance of a launch of one: the plan as the user gave it (its port is the one clients call), in the
 * environment as it is. With `--runtime-lora`, `extraEnv` lets vLLM change adapters at run time.
 */
export function soleInstance(
  plan: LaunchSettings,
  extraEnv: NodeJS.ProcessEnv,
  io: CliIo,
  hooks: InstanceHooks,
): Instance {
  const slot = { index: 0, gpu: undefined, port: plan.built.listen.port };
  return new Instance(slot, plan, { ...io, env: { ...io.env, ...extraEnv } }, "", hooks);
}

/** Instance `slot.index` of a fleet: the same serving intent on 127.0.0.1 and its own port, on its GPUs. */
export function fleetInstance(
  parsed: ParsedServeArgs,
  slot: Slot & { gpu: string },
  extraEnv: NodeJS.ProcessEnv,
  io: CliIo,
  hooks: InstanceHooks,
): Instance {
  const { index, gpu, port } = slot;
  // The main plan already printed the warnings: the instances' are the same.
  const quiet: CliIo = { ...io, err: () => {} };
  const plan = readLaunchSettings(
    { ...parsed, options: { ...parsed.options, host: "127.0.0.1", port } },
    quiet,
  );
  const prefixed: CliIo = {
    ...io,
    env: { ...io.env, ...extraEnv, CUDA_VISIBLE_DEVICES: gpu },
    err: (text) => io.err(text.replace(/^\[vllm\] /gm, `[vllm-${index}] `)),
  };
  return new Instance(slot, plan, prefixed, `instance ${index} (port ${port}): `, hooks);
}
