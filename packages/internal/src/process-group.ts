// One way to run a program that starts children of its own (vLLM and its engine workers, Prism, nginx):
// in its own process group, so a signal reaches every process of it and nothing is left behind.
// Node-only: never import this from code the client uses.
import { type ChildProcess, spawn } from "node:child_process";
import { constants } from "node:os";

export interface ChildExit {
  /** The main process's exit code, or null when a signal ended it. */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the program could not be started at all. */
  error?: Error;
}

export interface ProcessGroup {
  readonly child: ChildProcess;
  /** The process group id: the main process's pid. `kill -TERM -- -<pgid>` stops the whole group. */
  readonly pgid: number | undefined;
  /** Resolves when the main process has exited (its workers may live on: see `stop`). */
  readonly exited: Promise<ChildExit>;
  /** Whether any process of the group is still alive. */
  alive(): boolean;
  /** Sends a signal to every process of the group. False when none was left to receive it. */
  signal(signal: NodeJS.Signals): boolean;
  /**
   * Stops the whole group: `signal` (SIGTERM by default), then SIGKILL after `graceMs`, and resolves once
   * no process of it is left (or `killWaitMs` after SIGKILL, for a process that cannot die). Also ends the
   * output pipes, which an orphaned worker would otherwise hold open. Calling it again hurries it: `force`
   * sends SIGKILL at once.
   */
  stop(options: { graceMs: number; signal?: NodeJS.Signals; killWaitMs?: number }): Promise<void>;
  /** SIGKILL to the group now. */
  kill(): void;
}

export interface SpawnGroupOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Called with each chunk of output, decoded as UTF-8. */
  onOutput?: (stream: "stdout" | "stderr", chunk: string) => void;
}

const POLL_MS = 50;

/**
 * Spawns `command` without a shell as the leader of a new process group, with stdin closed and its output
 * piped. If this process exits first, the group is killed (a safety net for crashes and process.exit;
 * nothing can run after SIGKILL, which is why callers also record the group id).
 */
export function spawnGroup(
  command: string,
  args: readonly string[],
  options: SpawnGroupOptions = {},
): ProcessGroup {
  const child = spawn(command, args, {
    env: options.env ?? process.env,
    cwd: options.cwd,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const pgid = child.pid;
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => options.onOutput?.("stdout", chunk));
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => options.onOutput?.("stderr", chunk));
  const exited = new Promise<ChildExit>((resolve) => {
    child.once("error", (error) => resolve({ code: null, signal: null, error }));
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  const alive = () => pgid !== undefined && signalGroup(pgid, 0);
  const signal = (name: NodeJS.Signals) => pgid !== undefined && signalGroup(pgid, name);
  const safetyNet = () => signal("SIGKILL");
  process.once("exit", safetyNet);
  const stopper = groupStopper({
    alive,
    signal,
    exited,
    // The group is gone (or unkillable): let go of its pipes, which an orphaned worker would otherwise
    // hold open, and of the exit listener.
    release: () => {
      child.stdout?.destroy();
      child.stderr?.destroy();
      process.removeListener("exit", safetyNet);
    },
  });
  return {
    child,
    pgid,
    exited,
    alive,
    signal,
    kill: () => {
      signal("SIGKILL");
      stopper.hurry();
    },
    stop: stopper.stop,
  };
}

interface StoppableGroup {
  alive(): boolean;
  signal(signal: NodeJS.Signals): boolean;
  readonly exited: Promise<ChildExit>;
  /** Called once the stop is over. */
  release(): void;
}

/** ProcessGroup's `stop` (one stop however often it is called) and what hurries it (SIGKILL sent). */
function groupStopper(group: StoppableGroup): Pick<ProcessGroup, "stop"> & { hurry(): void } {
  const { alive, signal, exited } = group;
  let stopping: Promise<void> | undefined;
  let hurry: (() => void) | undefined;
  return {
    hurry: () => hurry?.(),
    stop({ graceMs, signal: first = "SIGTERM", killWaitMs = 5_000 }) {
      if (stopping !== undefined) return stopping;
      stopping = (async () => {
        signal(first);
        // Once the main process is gone, what is left are its workers, orphaned: a worker may ignore the
        // SIGINT its parent handled, so the group gets SIGTERM at once instead of at the end of the grace.
        if (first !== "SIGTERM" && first !== "SIGKILL") {
          void exited.then(() => {
            if (alive()) signal("SIGTERM");
          });
        }
        const forced = new Promise<void>((resolve) => {
          hurry = resolve;
        });
        if (!(await waitUntil(() => !alive(), graceMs, forced))) {
          signal("SIGKILL");
          await waitUntil(() => !alive(), killWaitMs);
        }
        await Promise.race([exited, delay(killWaitMs)]);
        group.release();
      })();
      return stopping;
    },
  };
}

/** `kill(-pgid, signal)`; false when no process of the group exists (ESRCH). */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    // EPERM: a process exists that we may not signal (it changed user); it still counts as alive.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Polls `done` until it is true (resolves true), `timeoutMs` passes or `cut` settles (resolves false). */
export async function waitUntil(
  done: () => boolean,
  timeoutMs: number,
  cut?: Promise<void>,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  let cutShort = false;
  void cut?.then(() => {
    cutShort = true;
  });
  while (!done()) {
    if (cutShort || Date.now() >= deadline) return false;
    await delay(Math.min(POLL_MS, Math.max(1, deadline - Date.now())));
  }
  return true;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The exit code a shell would report: the code, or 128 + the signal's number. */
export function exitCodeOf(exit: ChildExit): number {
  if (exit.code !== null) return exit.code;
  if (exit.signal !== null) return 128 + (constants.signals[exit.signal] ?? 0);
  return 1;
}
