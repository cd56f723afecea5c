import { escapeForTerminal } from "@finetune-studio/internal";
import {
  type FleetCounts,
  type InstanceSignals,
  readInstanceSignals,
  type ScaleDecision,
} from "@finetune-studio/serve-kit/internal";
import { sleep } from "../shared/abortable-sleep.js";
import { messageOf } from "../shared/messages.js";
import { readMetricsPage } from "../status/status-probe.js";
import { freeGpuGroups, type GpuPool } from "./free-gpus.js";
import { HpaRule } from "./hpa-scale-rule.js";
import type { Instance } from "./instance.js";
import type { AutoscalerRecord } from "./launch-state.js";
import type { ScaleRule } from "./scale-rule.js";
import type { Scaler, Supervisor } from "./supervisor.js";
import type { AutoscaleSettings } from "./types.js";
import { WindowRule } from "./window-rule.js";

/** A read of one page, bounded: vLLM's page is tens of KiB; one that does not answer in time is unknown. */
const METRICS_TIMEOUT_MS = 1_500;
const MAX_METRICS_BYTES = 2 * 1024 * 1024;

/**
 * The local autoscaler of `launch --instances MIN..MAX`, in the supervisor and never in the data path:
 * when its rule says (scale-rule.ts: every POLL_MS for the window rule, every 15 s for the HPA's) it reads
 * each serving instance's `/metrics` and HAProxy's queue and asks the rule; up wakes sleeping instances
 * first, else starts them on free GPUs; down drains them (no request fails) and stops them, or puts them
 * to sleep with `--idle sleep`. One step runs at a time. An instance whose page cannot be read is said
 * once, not counted as load, and does not hold the others' decisions (AIBrix's known pain).
 */
export class Autoscaler implements Scaler {
  #record: AutoscalerRecord;
  /** Instances whose page could not be read last time, by index, with why (said once). */
  readonly #unreadable = new Map<number, string>();
  readonly #rule: ScaleRule;
  #balancerSilent = false;
  #busy = false;

  constructor(
    private readonly fleet: Supervisor,
    private readonly settings: AutoscaleSettings,
    /** Where it may start instances. */
    private readonly pool: GpuPool,
    batch: number,
  ) {
    const { min, max, rule } = settings;
    const startMs = Date.now();
    this.#rule = rule === "hpa" ? new HpaRule(settings, startMs) : new WindowRule(settings, batch);
    this.#record = { range: `${min}..${max}`, rule, action: "none", reason: "not read yet", atMs: startMs };
  }

  get record(): AutoscalerRecord {
    return this.#record;
  }

  async run(): Promise<void> {
    const stop = this.fleet.stopped;
    while (await sleep(this.#rule.waitMs(Date.now()), stop)) {
      // A rolling reload moves the instances itself: the autoscaler waits for it.
      if (this.fleet.reloading !== undefined) continue;
      const counts = this.#counts();
      const short = this.settings.min - counts.serving - counts.arriving;
      if (short > 0) {
        // An instance crashed (or a wake failed with no GPU left): back to MIN before any rule.
        this.#say(`${counts.serving} serving, below the minimum of ${this.settings.min}: adding ${short}`);
        await this.#step(() => this.#grow(short));
        continue;
      }
      if (!this.#rule.readsAt(Date.now())) continue;
      const decision = await this.#decide();
      // A reload may have begun while the pages were read: it moves the instances, not the autoscaler.
      if (decision === undefined || decision.action === "hold" || stop.aborted) continue;
      if (this.fleet.reloading !== undefined) continue;
      this.#say(`${decision.action === "up" ? "scaling up" : "scaling down"}: ${decision.reason}`);
      await this.#step(() =>
        decision.action === "up" ? this.#grow(decision.add) : this.#shrink(decision.remove),
      );
    }
  }

  get busy(): boolean {
    return this.#busy;
  }

  /** One step, marked busy (a reload waits for it); the rule is told, so it reads the fleet anew. */
  async #step(act: () => Promise<void>): Promise<void> {
    this.#busy = true;
    try {
      await act();
    } finally {
      this.#busy = false;
      this.#rule.stepped();
    }
  }

  /** One read of the serving instances and the rule's decision on it (recorded). */
  async #decide(): Promise<ScaleDecision | undefined> {
    const serving = this.fleet.instances.filter((instance) => instance.state === "serving");
    const [queued, ...read] = await Promise.all([
      this.#frontDoorQueue(),
      ...serving.map((instance) => this.#read(instance)),
    ]);
    if (this.fleet.stopped.aborted) return undefined;
    const timeMs = Date.now();
    const known = read.filter((one): one is InstanceSignals => one !== undefined);
    const sample = { timeMs, serving: withFrontDoorQueue(known, queued ?? 0) };
    const decision = this.#rule.decide(sample, this.#counts());
    if (decision.action !== this.#record.action || decision.reason !== this.#record.reason) {
      this.#record = { ...this.#record, action: decision.action, reason: decision.reason, atMs: timeMs };
      this.fleet.saveState();
    }
    return decision;
  }

  /** The requests HAProxy holds for a free slot; 0 (said once) when its runtime API does not answer. */
  async #frontDoorQueue(): Promise<number> {
    try {
      const queued = (await this.fleet.balancer?.queued()) ?? 0;
      this.#balancerSilent = false;
      return queued;
    } catch (error) {
      if (!this.#balancerSilent) {
        this.#say(`HAProxy's queue cannot be read (${escapeForTerminal(messageOf(error))}); counted as 0`);
      }
      this.#balancerSilent = true;
      return 0;
    }
  }

  /** One instance's signals, or undefined (said when it changes) when its page cannot be read. */
  async #read(instance: Instance): Promise<InstanceSignals | undefined> {
    const root = instance.plan.built.client.rootURL;
    const page = await readMetricsPage(root, METRICS_TIMEOUT_MS, MAX_METRICS_BYTES, this.fleet.stopped);
    const reading =
      typeof page === "string" ? { signals: null, reason: page } : readInstanceSignals(page.text);
    if (reading.signals !== null) {
      if (this.#unreadable.delete(instance.index)) this.#say(`${instance.name}: its metrics read again`);
      return reading.signals;
    }
    if (this.#unreadable.get(instance.index) !== reading.reason) {
      this.#say(
        `${instance.name}: its metrics cannot be read (${escapeForTerminal(reading.reason)}); not counted as load`,
      );
      this.#unreadable.set(instance.index, reading.reason);
    }
    return undefined;
  }

  #counts(): FleetCounts {
    const inState = (state: Instance["state"]) =>
      this.fleet.instances.filter((instance) => instance.state === state).length;
    return { serving: inState("serving"), arriving: inState("starting"), draining: inState("draining") };
  }

  /** `add` more instances: sleeping ones woken first, the rest started on free GPUs, together. */
  async #grow(add: number): Promise<void> {
    const asleep = this.fleet.instances.filter((instance) => instance.state === "asleep").slice(0, add);
    const woken = await Promise.all(asleep.map((instance) => this.#wake(instance)));
    const cold = add - woken.filter(Boolean).length;
    if (cold > 0) await this.#startCold(cold);
  }

  async #wake(instance: Instance): Promise<boolean> {
    const started = performance.now();
    const woke = await this.fleet.wake(instance, (line) => this.#say(line));
    if (woke) this.#say(`${instance.name} serves again, woken in ${seconds(started)} (GPU ${instance.gpu})`);
    return woke;
  }

  /** `count` new instances, each on a free GPU group (one this launch does not hold and nobody uses). */
  async #startCold(count: number): Promise<void> {
    const held = this.fleet.instances
      .filter((instance) => instance.state !== "stopped")
      .map((instance) => instance.gpu ?? "");
    const { free, unchecked } = await freeGpuGroups(this.pool, held, this.fleet.io);
    if (unchecked) this.#say("nvidia-smi did not answer: only the GPUs this launch holds were left out");
    if (free.length < count) {
      this.#say(`${free.length} of the ${count} instances wanted have free GPUs (others use the rest)`);
    }
    await Promise.all(
      free.slice(0, count).map(async (gpu) => {
        const started = performance.now();
        const instance = await this.fleet.add(gpu, (line) => this.#say(line));
        if (instance !== undefined) {
          this.#say(`${instance.name} serves, started in ${seconds(started)} on GPU ${gpu}`);
        } else if (!this.fleet.stopped.aborted) {
          this.#say(`an instance on GPU ${gpu} did not come up (its reason is above)`);
        }
      }),
    );
  }

  /**
   * `remove` instances fewer: those whose page cannot be read first, then the newest. Drained together, as
   * the HPA's pods terminate together: a drain waits for the longest open request, and one after the other
   * would add those waits up. A drain refused (no other instance left serving) keeps its instance.
   */
  async #shrink(remove: number): Promise<void> {
    const serving = this.fleet.instances.filter((instance) => instance.state === "serving");
    const unreadable = (instance: Instance) => this.#unreadable.has(instance.index);
    const order = [...serving.filter(unreadable), ...serving.filter((one) => !unreadable(one)).reverse()];
    await Promise.all(order.slice(0, remove).map((leaving) => this.#idle(leaving)));
  }

  /** One instance drained, then stopped or put to sleep as `--idle` says. */
  async #idle(leaving: Instance): Promise<void> {
    const say = (line: string) => this.#say(`${leaving.name}: ${line}`);
    if (this.settings.idle === "sleep") {
      if (await this.fleet.drainAndSleep(leaving, say)) this.#say(`${leaving.name} drained and asleep`);
    } else if (await this.fleet.drainAndStop(leaving, "scaled down", say)) {
      this.#say(`${leaving.name} drained and stopped; GPU ${leaving.gpu} is free`);
    }
  }

  #say(line: string): void {
    this.fleet.io.err(`studio-serve: autoscaler: ${line}\n`);
  }
}

/**
 * The instances' signals with the front door's queue spread over them as waiting requests: with
 * --max-num-seqs HAProxy sends each instance no more than it runs, so the queue vLLM would have held is
 * HAProxy's. decideScale reads the totals, so how it is spread does not change a decision.
 */
export function withFrontDoorQueue(serving: readonly InstanceSignals[], queued: number): InstanceSignals[] {
  const n = serving.length;
  return serving.map((one, i) => ({
    ...one,
    waiting: one.waiting + Math.floor(queued / n) + (i < queued % n ? 1 : 0),
  }));
}

function seconds(sinceMs: number): string {
  return `${((performance.now() - sinceMs) / 1000).toFixed(1)} s`;
}
