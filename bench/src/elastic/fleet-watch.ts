// The launch's instances as its state file says them, read every 200 ms: how many hold GPUs (starting,
// serving or draining), how many serve, how many sleep, and which processes ran. The bench counts an
// elastic fleet's instance-seconds and its steps from these readings.
import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface FleetReading {
  /** performance.now() when the file was read. */
  readonly timeMs: number;
  /** Instances holding their GPUs: starting, serving or draining (an asleep one has freed its GPU memory). */
  readonly holding: number;
  readonly serving: number;
  readonly asleep: number;
  /** The process groups of the instances not stopped: a new one is a process started. */
  readonly groups: readonly number[];
}

interface StateFile {
  instances?: { state?: string; group?: { pgid: number } }[];
  autoscaler?: { action?: string; atMs?: number };
}

const READ_EVERY_MS = 200;
const MAX_STATE_BYTES = 64 * 1024;

/** Reads `dir`/state.json every 200 ms until stopped; the readings are kept, oldest first. */
export function watchFleet(dir: string): { stop(): FleetReading[] } {
  const readings: FleetReading[] = [];
  const read = () => {
    const reading = readingOf(readStateFile(dir));
    if (reading !== undefined) readings.push(reading);
  };
  read();
  const timer = setInterval(read, READ_EVERY_MS);
  return {
    stop() {
      clearInterval(timer);
      read();
      return readings;
    },
  };
}

/** The launch's state.json, bounded; undefined between two writes (a rename) or before the first. */
function readStateFile(dir: string): StateFile | undefined {
  try {
    const text = readFileSync(join(dir, "state.json"), "utf8");
    return text.length > MAX_STATE_BYTES ? undefined : (JSON.parse(text) as StateFile);
  } catch {
    return undefined;
  }
}

function readingOf(state: StateFile | undefined): FleetReading | undefined {
  if (state === undefined) return undefined;
  const instances = (state.instances ?? []).filter((one) => one.state !== "stopped");
  const inState = (...states: string[]) => instances.filter((one) => states.includes(one.state ?? "")).length;
  return {
    timeMs: performance.now(),
    holding: inState("starting", "serving", "draining"),
    serving: inState("serving"),
    asleep: inState("asleep"),
    groups: instances.flatMap((one) => (one.group === undefined ? [] : [one.group.pgid])),
  };
}

/**
 * When the launch's autoscaler started, on this process's performance.now() clock: its record keeps its
 * start time until its first decision. Undefined once it has decided, or without a state file.
 */
export function autoscalerStart(dir: string): number | undefined {
  const record = readStateFile(dir)?.autoscaler;
  if (record?.action !== "none" || typeof record.atMs !== "number") return undefined;
  return performance.now() - (Date.now() - record.atMs);
}
