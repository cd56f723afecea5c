import { type ChildProcess, spawn } from "node:child_process";
import { constants } from "node:os";

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the program could not be started at all. */
  error?: Error;
}

export interface Supervised {
  readonly child: ChildProcess;
  readonly exited: Promise<ChildExit>;
  /** Whether the process has exited. */
  readonly done: () => boolean;
  /** Sends a signal to the child's whole process group (vLLM runs worker processes). */
  signal(signal: NodeJS.Signals): void;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. */
  stop(graceMs: number): Promise<ChildExit>;
}

/**
 * Spawns a program without a shell in its own process group, so a terminal's Ctrl-C reaches only us and
 * we pass it on once, to vLLM and its workers alike. A safety net kills the group if we exit first.
 */
export function supervise(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  onOutput: (stream: "stdout" | "stderr", chunk: string) => void,
): Supervised {
  const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let finished = false;
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => onOutput("stdout", chunk));
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => onOutput("stderr", chunk));
  const exited = new Promise<ChildExit>((resolve) => {
    child.once("error", (error) => {
      finished = true;
      resolve({ code: null, signal: null, error });
    });
    child.once("exit", (code, signal) => {
      finished = true;
      // Give the pipes a moment to deliver the last lines, which explain a crash.
      const settle = () => resolve({ code, signal });
      if (child.stdout?.readableEnded !== false && child.stderr?.readableEnded !== false) settle();
      else {
        const timer = setTimeout(settle, 2_000);
        child.once("close", () => {
          clearTimeout(timer);
          settle();
        });
      }
    });
  });
  const killGroup = (signal: NodeJS.Signals) => {
    if (finished || child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      child.kill(signal);
    }
  };
  const safetyNet = () => killGroup("SIGKILL");
  process.once("exit", safetyNet);
  void exited.then(() => process.removeListener("exit", safetyNet));
  return {
    child,
    exited,
    done: () => finished,
    signal: killGroup,
    async stop(graceMs) {
      killGroup("SIGTERM");
      const timer = setTimeout(() => killGroup("SIGKILL"), graceMs);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
}

/** The exit code a shell would report: the code, or 128 + the signal's number. */
export function exitCodeOf(exit: ChildExit): number {
  if (exit.code !== null) return exit.code;
  if (exit.signal !== null) return 128 + (constants.signals[exit.signal] ?? 0);
  return 1;
}
