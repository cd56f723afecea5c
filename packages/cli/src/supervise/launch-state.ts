import { readFileSync } from "node:fs";
import { join } from "node:path";
import { leftGroupState, processStartTicks, stopLeftGroup } from "@finetune-studio/internal";
import { SCALE_RULES, type ScaleRuleName } from "../shared/autoscale-flags.js";
import { writeFilesTogether } from "../shared/safe-files.js";
import { INSTANCE_STATES, type InstanceState } from "./life-cycle.js";

// What a launch runs (HAProxy and its instances, or a launch of one's vLLM) and each instance's state, written
// to DIR/state.json whenever it changes (a process group started, an instance moved in its life cycle):
// if launch itself is killed, HAProxy and the instances go on serving, and the next `launch`, `stop` or
// `status` on the port reads this file to find them, check they are still the same processes, and stop them.

/** A process group launch started: its id and its leader's start time (to tell a reused pid apart). */
export interface RecordedGroup {
  pgid: number;
  startTicks: string;
}

export interface LaunchState {
  launch: { pid: number; startTicks: string };
  host: string;
  port: number;
  balancer: RecordedGroup | undefined;
  /** The port on 127.0.0.1 where the front door's HAProxy serves its own Prometheus metrics; none for a launch of one. */
  metricsPort?: number | undefined;
  instances: RecordedInstance[];
  /** An elastic fleet's autoscaler: its range, its rule and its last decision, with why. */
  autoscaler?: AutoscalerRecord | undefined;
}

/** What `status --launch` shows of an elastic fleet's autoscaler. */
export interface AutoscalerRecord {
  /** `MIN..MAX`. */
  range: string;
  /** `--scale-rule`; absent in state files written before it (the window rule). */
  rule?: ScaleRuleName | undefined;
  /** up, down or hold; none before its first read of the instances. */
  action: "up" | "down" | "hold" | "none";
  /** Why, with the signals that caused it. */
  reason: string;
  /** When it decided, milliseconds since the epoch. */
  atMs: number;
}

export interface RecordedInstance {
  port: number;
  gpu: string;
  /** Where it is in its life cycle (life-cycle.ts), as the supervisor last moved it; absent in older files. */
  state?: InstanceState | undefined;
  group: RecordedGroup | undefined;
}

const STATE_FILE = "state.json";
const MAX_STATE_BYTES = 64 * 1024;

/** The group as recorded now, or undefined when it has no pid (it did not start). */
export function recordGroup(pgid: number | undefined): RecordedGroup | undefined {
  const startTicks = pgid === undefined ? undefined : processStartTicks(pgid);
  return pgid === undefined || startTicks === undefined ? undefined : { pgid, startTicks };
}

/**
 * The file of an elastic launch's instances Prometheus discovers (file_sd_configs): rewritten, by a rename,
 * as instances come and go, so `prometheus --launch P`'s config scrapes them without a restart.
 */
export const SCRAPE_TARGETS_FILE = "prometheus-targets.json";

/** The instances with a vLLM answering /metrics (serving, draining or asleep), as file_sd's JSON. */
export function writeScrapeTargets(dir: string, state: LaunchState): void {
  const answering = state.instances.filter(
    (instance) =>
      instance.state === "serving" || instance.state === "draining" || instance.state === "asleep",
  );
  const targets = answering.map((instance) => `127.0.0.1:${instance.port}`);
  writeFilesTogether(dir, [
    { name: SCRAPE_TARGETS_FILE, text: `${JSON.stringify([{ targets, labels: {} }])}\n` },
  ]);
}

export function writeLaunchState(dir: string, state: LaunchState): void {
  writeFilesTogether(dir, [{ name: STATE_FILE, text: `${JSON.stringify(state)}\n` }]);
}

/** The state a launch left in `dir`, or undefined when there is none or it is not one (it is not trusted). */
export function readLaunchState(dir: string): LaunchState | undefined {
  let text: string;
  try {
    const bytes = readFileSync(join(dir, STATE_FILE));
    if (bytes.length > MAX_STATE_BYTES) return undefined;
    text = bytes.toString("utf8");
  } catch {
    return undefined;
  }
  try {
    const value = JSON.parse(text) as LaunchState;
    const groups = [value.balancer, ...value.instances.map((instance) => instance.group)];
    const valid =
      isGroup({ pgid: value.launch.pid, startTicks: value.launch.startTicks }) &&
      groups.every((group) => group === undefined || isGroup(group)) &&
      value.instances.every(
        (instance) =>
          Number.isInteger(instance.port) &&
          typeof instance.gpu === "string" &&
          (instance.state === undefined || INSTANCE_STATES.includes(instance.state)),
      ) &&
      (value.metricsPort === undefined || Number.isInteger(value.metricsPort)) &&
      (value.autoscaler === undefined || isAutoscalerRecord(value.autoscaler));
    return valid ? value : undefined;
  } catch {
    return undefined;
  }
}

function isAutoscalerRecord(value: unknown): value is AutoscalerRecord {
  const record = value as AutoscalerRecord;
  return (
    typeof value === "object" &&
    value !== null &&
    typeof record.range === "string" &&
    /^\d{1,2}\.\.\d{1,2}$/.test(record.range) &&
    (record.rule === undefined || SCALE_RULES.includes(record.rule)) &&
    ["up", "down", "hold", "none"].includes(record.action) &&
    typeof record.reason === "string" &&
    record.reason.length <= 1000 &&
    Number.isFinite(record.atMs)
  );
}

function isGroup(value: unknown): value is RecordedGroup {
  const group = value as RecordedGroup;
  return (
    typeof value === "object" &&
    value !== null &&
    Number.isInteger(group.pgid) &&
    group.pgid > 1 &&
    typeof group.startTicks === "string" &&
    /^\d{1,20}$/.test(group.startTicks)
  );
}

/** A part of a launch that still runs though the launch is gone. */
export interface LeftPart {
  name: string;
  group: RecordedGroup;
  /** The signal that stops it gracefully: HAProxy finishes what it has on SIGUSR1, vLLM on SIGTERM. */
  signal: NodeJS.Signals;
}

/** The parts of a dead launch still running (the balancer first); empty when the launch itself still runs. */
export function leftParts(state: LaunchState): LeftPart[] {
  if (leftGroupState(state.launch.pid, state.launch.startTicks) === "ours") return [];
  const parts: LeftPart[] = [];
  if (state.balancer !== undefined) parts.push({ name: "HAProxy", group: state.balancer, signal: "SIGUSR1" });
  for (const [i, instance] of state.instances.entries()) {
    if (instance.group !== undefined) {
      // A launch of one records no GPU: its vLLM took the environment's.
      const name =
        instance.gpu === ""
          ? `vLLM (port ${instance.port})`
          : `vLLM instance ${i} (port ${instance.port}, GPU ${instance.gpu})`;
      parts.push({ name, group: instance.group, signal: "SIGTERM" });
    }
  }
  return parts.filter((part) => leftGroupState(part.group.pgid, part.group.startTicks) === "ours");
}

/**
 * Stops the balancer first (no new request reaches an instance), then the instances together, each group
 * with its graceful signal, the grace, then SIGKILL. Names the parts that would not stop.
 */
export async function stopLeftParts(parts: readonly LeftPart[], graceMs: number): Promise<string[]> {
  const stop = async (part: LeftPart) => {
    const stopped = await stopLeftGroup(part.group.pgid, part.group.startTicks, {
      graceMs,
      signal: part.signal,
    });
    return stopped ? [] : [part.name];
  };
  const balancer = await Promise.all(parts.filter((part) => part.signal === "SIGUSR1").map(stop));
  const instances = await Promise.all(parts.filter((part) => part.signal !== "SIGUSR1").map(stop));
  return [...balancer, ...instances].flat();
}

/** "HAProxy (pgid 12) and vLLM instance 0 (...) (pgid 13)" */
export function describeParts(parts: readonly LeftPart[]): string {
  const names = parts.map((part) => `${part.name} (process group ${part.group.pgid})`);
  return names.length <= 1 ? (names[0] ?? "nothing") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}
