import type { ChildProcess } from "node:child_process";
import { spawnGroup } from "@finetune-studio/internal";

export interface ManagedProcess {
  readonly child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code (or signal name) once the process has exited. */
  readonly exited: Promise<number | string>;
  /**
   * SIGTERM to the whole process group, SIGKILL after `graceMs`; resolves once no process of the group is
   * left, children that outlived the main process included.
   */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Spawns a command in its own process group (internal's spawnGroup, the one supervisor the CLI uses too),
 * capturing its output, so that `stop()` ends it and its children. A test runner that dies mid-run kills
 * the group on exit.
 */
export function startProcess(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): ManagedProcess {
  let log = "";
  const group = spawnGroup(command, args, {
    env: options.env ?? process.env,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    onOutput: (_stream, chunk) => {
      log += chunk;
    },
  });
  const exited = group.exited.then((exit) => {
    if (exit.error !== undefined) {
      log += `${exit.error.message}\n`;
      return "spawn-error";
    }
    return exit.code ?? exit.signal ?? "unknown";
  });
  return {
    child: group.child,
    output: () => log,
    exited,
    stop: (graceMs = 3_000) => group.stop({ graceMs }),
  };
}
