import { rmSync } from "node:fs";
import type { Server as NetServer } from "node:net";
import { type ChildExit, escapeForTerminal, exitCodeOf, processStartTicks } from "@finetune-studio/internal";
import type { LaunchEvent } from "../instance/events.js";
import type { LaunchSettings } from "../instance/launch-settings.js";
import { describeExit, reportLastLines } from "../instance/report.js";
import { ExitCode } from "../shared/exit-codes.js";
import type { CliIo } from "../shared/io.js";
import { messageOf } from "../shared/messages.js";
import { changeAdapter, reapplyAdapters } from "./adapters.js";
import { type ControlRequest, serveControl } from "./control.js";
import type { Balancer, Door } from "./door.js";
import { type DrainOutcome, untilDrained } from "./drain.js";
import type { Instance, InstanceHooks } from "./instance.js";
import { crashedEvent } from "./instance-start.js";
import {
  type AutoscalerRecord,
  type LaunchState,
  recordGroup,
  writeLaunchState,
  writeScrapeTargets,
} from "./launch-state.js";
import { reload } from "./reload.js";
import { controlSocketOf, makeRuntimeDir } from "./runtime-dir.js";
import { withSignalsOwned } from "./signals.js";
import type { Fleet, RunningReload } from "./types.js";

/** What runs beside an elastic fleet once it serves (autoscaler.ts), and what it last decided. */
export interface Scaler {
  run(): Promise<void>;
  readonly record: AutoscalerRecord;
  /** A step (an instance starting, waking, draining) is under way: a reload waits for it to end. */
  readonly busy: boolean;
}

/**
 * The one owner of a launch's processes, for a launch of one and a fleet alike (what differs is its Door):
 * it claims the launch's directory, starts the instances, opens the door, owns the signals and the control
 * socket, records every instance's state in the state file, and on every way the run ends stops every
 * process group the same way (the door first, then the instances: signal, grace, KILL).
 * Launch, reload, stop and the autoscaler move instances through their life cycle by its operations only:
 * `add`, `drain`, `admit`, `drainAndStop`, and each Instance's `start` and `stop`.
 */
export class Supervisor implements Fleet {
  readonly adapters = new Map<string, string>();
  reloading: RunningReload | undefined;
  readonly #door: Door;
  readonly #instances: Instance[] = [];
  readonly #stop = new AbortController();
  /** The first stop signal launch got, if any: vLLM gets SIGINT for a Ctrl-C, else SIGTERM. */
  #stopSignal: NodeJS.Signals | undefined;
  /** Set by whatever ended the run on its own (an instance's exit, HAProxy's). */
  #exitCode: number | undefined;
  #ready = false;
  /** The state file may be written: the directory is launch's and not removed yet. */
  #recording = false;
  #scaler: Scaler | undefined;
  readonly #hooks: InstanceHooks = {
    changed: () => this.saveState(),
    exited: (instance, exit) => this.#instanceExited(instance, exit),
  };

  constructor(
    readonly plan: LaunchSettings,
    readonly io: CliIo,
    readonly dir: string,
    readonly apiKey: string | undefined,
    door: Door,
    scaler?: (supervisor: Supervisor) => Scaler,
  ) {
    this.#door = door;
    this.#scaler = scaler?.(this);
  }

  get instances(): readonly Instance[] {
    return this.#instances;
  }

  /** Aborted once launch stops: ends every wait. */
  get stopped(): AbortSignal {
    return this.#stop.signal;
  }

  /** A stop signal came (a second one forces). */
  get stopping(): boolean {
    return this.#stopSignal !== undefined;
  }

  /** Every instance served once and the door is open. */
  get ready(): boolean {
    return this.#ready;
  }

  /** The balancer's run-time control; undefined for a launch of one (its instance cannot drain). */
  get balancer(): Balancer | undefined {
    return this.#door.balancer;
  }

  /** The whole launch, once its settings are checked: launch's exit code. */
  async run(): Promise<number> {
    const refused = (await this.#door.check()) ?? (await this.#claimDir());
    if (refused !== undefined) return refused;
    const busy = await this.#door.checkPorts();
    if (busy !== undefined) {
      rmSync(this.dir, { recursive: true, force: true });
      return busy;
    }
    this.#recording = true;
    this.#instances.push(...this.#door.slots.map((slot) => this.#door.instanceFor(slot, this.#hooks)));
    this.saveState();
    // The control socket answers from the first moment, so a second launch on this port refuses while this
    // one is still loading (and `reload` or `adapter` are told to wait) instead of taking over its directory.
    const control = await serveControl(controlSocketOf(this.dir), (request, say) =>
      this.#control(request, say),
    );
    return await withSignalsOwned(
      this,
      this.io,
      () => this.#serve(),
      (code) => this.#shutDown(code, control),
    );
  }

  /**
   * The private directory: made, or taken over from a launch that was killed on this port (what it left
   * running is stopped first); refused while another launch serves the port. Launch's exit code if not.
   */
  async #claimDir(): Promise<number | undefined> {
    const say = (line: string) => this.io.err(`studio-serve: ${line}\n`);
    const problem = await makeRuntimeDir(this.dir, this.plan.stopGraceMs, say);
    if (problem === undefined) return undefined;
    say(escapeForTerminal(problem));
    return ExitCode.Failure;
  }

  /** Every instance started together, then the door opened; serves until a stop. */
  async #serve(): Promise<number> {
    const instances = this.#instances;
    this.#door.announceStart(instances);
    const results = await Promise.all(instances.map((instance) => instance.start(this.stopped)));
    if (this.stopped.aborted) return this.#exitCode ?? ExitCode.Ok;
    for (const [i, result] of results.entries()) {
      if (typeof result === "number") continue;
      // Among several, say which: its reason is above, in its own words.
      if (instances.length > 1) {
        this.io.err(`studio-serve: ${instances[i]?.name} did not start (its reason is above); stopping\n`);
      }
      return result?.code ?? ExitCode.Failure;
    }
    for (const instance of instances) instance.moveTo("serving");
    const closed = await this.#door.open(this.stopped, {
      spawned: () => this.saveState(),
      ended: (code) => this.#end(code),
    });
    if (closed !== undefined || this.stopped.aborted) return closed ?? this.#exitCode ?? ExitCode.Ok;
    this.#ready = true;
    this.#door.announceReady(Math.max(...results.map(Number)));
    // The autoscaler steers the fleet from here, never in the data path; it ends when launch stops.
    const scaling = this.#scaler?.run().catch((error) => {
      this.io.err(`studio-serve: autoscaler: stopped by an error: ${escapeForTerminal(messageOf(error))}\n`);
    });
    await untilAborted(this.stopped);
    await scaling;
    return (
      this.#exitCode ??
      (instances.some((instance) => instance.state === "serving") ? ExitCode.Ok : ExitCode.Failure)
    );
  }

  /** Ends the run on its own (not by a stop someone asked for), with launch's exit code. */
  #end(code: number): void {
    if (this.stopped.aborted) return;
    this.#exitCode = code;
    this.#stop.abort();
  }

  /**
   * An instance that exits on its own once it served: recorded (a clean exit as stopped, any other as a
   * crash with its last lines), and out of the balancer at once (its health check would take a few seconds);
   * the others serve its share. With none left serving, launch stops.
   */
  #instanceExited(instance: Instance, exit: ChildExit): void {
    if (this.stopped.aborted) return;
    instance.endedOnItsOwn(this.#reportExit(instance, exit));
    if (!this.#instances.some((other) => other.state === "serving")) {
      this.#end(this.#door.exitCodeWhenNoneLeft(exit));
      return;
    }
    void this.balancer?.set(instance.index, "maint").catch(() => {});
    if (this.#scaler !== undefined) {
      // An elastic fleet frees its slot and GPUs: the autoscaler starts another when MIN or the load asks.
      this.#instances.splice(this.#instances.indexOf(instance), 1);
      this.saveState();
      this.io.err(
        `studio-serve: ${instance.label}the others serve its share; the autoscaler replaces it when MIN or the load asks\n`,
      );
      return;
    }
    this.io.err(
      `studio-serve: ${instance.label}the others serve its share; \`studio-serve reload\` starts it again\n`,
    );
  }

  #reportExit(instance: Instance, exit: ChildExit): LaunchEvent & { event: "stopped" | "crashed" } {
    const code = exitCodeOf(exit);
    if (code === 0) {
      this.io.err(`studio-serve: ${instance.label}vLLM exited (exit code 0)\n`);
      return { event: "stopped", reason: "vLLM exited", exitCode: 0 };
    }
    this.io.err(`studio-serve: ${instance.label}vLLM exited (${describeExit(exit)}).\n`);
    reportLastLines(instance.lastLines(), this.io);
    return crashedEvent(instance.lastLines(), code, exit.signal);
  }

  /** A stop signal: the first stops gracefully, a second forces every process group (SIGKILL). */
  stopOn(signal: NodeJS.Signals): void {
    const what = this.#door.describe(this.#instances.length);
    if (this.#stopSignal === undefined) {
      this.#stopSignal = signal;
      this.io.err(
        `studio-serve: ${signal}: stopping ${what} (up to ${this.plan.stopGraceMs / 1000} s, then SIGKILL; again to force)\n`,
      );
      this.#stop.abort();
      return;
    }
    this.io.err(`studio-serve: forcing ${what} to stop (SIGKILL to every process group)\n`);
    this.#door.kill();
    for (const instance of this.#instances) instance.kill();
  }

  /** SIGHUP: a rolling reload where the instances can drain; a launch of one stops, as on SIGTERM. */
  hangUp(): void {
    if (this.balancer === undefined) this.stopOn("SIGHUP");
    else if (this.#scaler?.busy) this.io.err(`studio-serve: reload: ${SCALER_BUSY}\n`);
    else void reload(this);
  }

  /** The door first (HAProxy finishes what it has), then every instance, the control socket, the directory. */
  async #shutDown(code: number, control: NetServer): Promise<number> {
    this.#stop.abort();
    await this.#door.close(this.plan.stopGraceMs);
    const signal = this.#stopSignal;
    const reason = signal === undefined ? "launch stopped" : `signal ${signal}`;
    // vLLM stops gracefully on SIGINT (Ctrl-C) and SIGTERM; HUP and QUIT would kill it without cleanup.
    const graceful = signal === "SIGINT" ? "SIGINT" : "SIGTERM";
    const exits = await Promise.all(this.#instances.map((instance) => instance.stop(reason, graceful)));
    this.#recording = false;
    control.close();
    rmSync(this.dir, { recursive: true, force: true });
    if (signal === undefined) return code;
    for (const [i, exit] of exits.entries()) {
      const label = this.#instances[i]?.label ?? "";
      if (exit !== undefined)
        this.io.err(`studio-serve: ${label}vLLM stopped (${describeExit(exit, true)})\n`);
    }
    return this.#door.exitCodeAfterStop(code, exits);
  }

  async #control(request: ControlRequest, say: (line: string) => void): Promise<boolean> {
    if (request.op === "instances") {
      // One root URL a line, for `status --launch`: a fleet's instances listen on loopback only.
      for (const instance of this.#instances) say(instance.plan.built.client.rootURL);
      return true;
    }
    if (request.op === "stop") {
      say(`launch (pid ${process.pid}) is stopping ${this.#door.describe(this.#instances.length)}`);
      this.io.err("studio-serve: `studio-serve stop` asked to stop\n");
      this.#stop.abort();
      return true;
    }
    if (!this.#ready) {
      say("the launch is still starting its instances; try again once it is ready");
      return false;
    }
    if (request.op === "reload" && this.#scaler?.busy) {
      say(`reload: ${SCALER_BUSY}`);
      return false;
    }
    if (request.op === "reload") return await reload(this, say);
    return await changeAdapter(this, request, say);
  }

  /** Records launch's own pid, every group it runs and each instance's state, for whoever comes after. */
  saveState(): void {
    if (!this.#recording) return;
    const { host, port } = this.plan.built.listen;
    const state: LaunchState = {
      launch: { pid: process.pid, startTicks: processStartTicks(process.pid) ?? "0" },
      host,
      port,
      balancer: recordGroup(this.#door.pgid),
      metricsPort: this.#door.metricsPort,
      instances: this.#instances.map((instance) => ({
        port: instance.port,
        gpu: instance.gpu ?? "",
        state: instance.state,
        group: recordGroup(instance.pgid),
      })),
      ...(this.#scaler === undefined ? {} : { autoscaler: this.#scaler.record }),
    };
    writeLaunchState(this.dir, state);
    // An elastic fleet's instances come and go: Prometheus follows them in a file it watches.
    if (this.#scaler !== undefined) writeScrapeTargets(this.dir, state);
  }

  // The operations reload and the autoscaler move instances by.

  /**
   * serving → draining: the balancer sends it no new request and its open ones finish (vLLM cuts them on
   * SIGTERM, it does not drain), within a bound; then it is in maintenance, out of the balancer. Refused
   * ("alone") when no other instance serves to take its requests, or without a balancer.
   */
  async drain(instance: Instance, say: (line: string) => void = () => {}): Promise<DrainOutcome> {
    const balancer = this.balancer;
    const others = this.#instances.some((other) => other !== instance && other.state === "serving");
    if (balancer === undefined || !others) return "alone";
    instance.moveTo("draining");
    await balancer.set(instance.index, "drain");
    say(`drained in HAProxy; waiting for its ${await balancer.openRequests(instance.index)} open requests`);
    const outcome = await untilDrained(balancer, instance.index, this.stopped);
    if (outcome !== "stopping") await balancer.set(instance.index, "maint");
    return outcome;
  }

  /** starting → serving: the balancer sends it requests at once (not after its health checks pass again). */
  async admit(instance: Instance): Promise<void> {
    await this.balancer?.set(instance.index, "ready");
    instance.moveTo("serving");
  }

  /** The autoscaler's step down: drained as a reload drains it, its process group stopped, its slot freed. */
  async drainAndStop(instance: Instance, reason: string, say?: (line: string) => void): Promise<boolean> {
    const outcome = await this.drain(instance, say);
    if (outcome === "alone") return false;
    await this.#remove(instance, reason);
    return true;
  }

  /** Its process group stopped and its slot freed. */
  async #remove(instance: Instance, reason: string): Promise<void> {
    await instance.stop(reason);
    const at = this.#instances.indexOf(instance);
    if (at >= 0) this.#instances.splice(at, 1);
    this.saveState();
  }

  /**
   * The autoscaler's step down with `--idle sleep`: drained as drainAndStop drains it, then put to sleep
   * (its weights in host memory, its GPU memory freed) and left out of the balancer. One that will not sleep
   * is stopped instead (said). False when it could not be drained (alone, or launch stopping).
   */
  async drainAndSleep(instance: Instance, say: (line: string) => void): Promise<boolean> {
    const outcome = await this.drain(instance, say);
    if (outcome === "alone" || outcome === "stopping") return false;
    try {
      await instance.sleep(this.stopped);
    } catch (error) {
      if (this.stopped.aborted) return false;
      say(`${instance.name} did not sleep (${escapeForTerminal(messageOf(error))}); stopping it instead`);
      await this.#remove(instance, "did not sleep");
    }
    return true;
  }

  /**
   * The autoscaler's step up from sleep: asleep → starting → serving, admitted once it answers a one-token
   * completion on its own port. A wake that fails (the GPU's memory taken meanwhile) is said and the
   * instance stopped, its slot freed, never retried: false, and the caller starts one cold instead.
   */
  async wake(instance: Instance, say: (line: string) => void): Promise<boolean> {
    try {
      await instance.wake(this.stopped);
    } catch (error) {
      if (this.stopped.aborted) return false;
      say(`${instance.name}: the wake failed (${escapeForTerminal(messageOf(error))}); stopping it`);
      await this.#remove(instance, "wake failed");
      return false;
    }
    await this.admit(instance);
    return true;
  }

  /**
   * The autoscaler's step up: one more instance on `gpu`, in the first free slot the door has room for:
   * started, given the adapters loaded at run time, then admitted to the balancer. Undefined (its reason
   * said) when there is no room, or it did not come up (then nothing of it is left running).
   */
  async add(gpu: string, say: (line: string) => void = () => {}): Promise<Instance | undefined> {
    let index = 0;
    while (this.#instances.some((instance) => instance.index === index)) index += 1;
    const slot = this.#door.slotFor(index, gpu);
    if (this.stopped.aborted) return undefined;
    if (slot === undefined) {
      say(`no room for instance ${index} in the front door's configuration`);
      return undefined;
    }
    const instance = this.#door.instanceFor(slot, this.#hooks);
    // In slot order, as the state file and `status` list them.
    this.#instances.splice(index, 0, instance);
    const started = await instance.start(this.stopped);
    if (typeof started !== "number" || !(await reapplyAdapters(this, instance, say))) {
      await this.#remove(instance, "did not come up");
      return undefined;
    }
    await this.admit(instance);
    return instance;
  }
}

const SCALER_BUSY = "the autoscaler is moving an instance (see its last line); try again once it is done";

function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    signal.addEventListener("abort", () => resolve(), { once: true });
  });
}
