import type { ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import { type ChildExit, escapeForTerminal, type ProcessGroup, spawnGroup } from "@finetune-studio/internal";
import type { CliIo } from "../shared/io.js";
import { FileWriteError, writeFreshFile } from "../shared/safe-files.js";
import type { LaunchSettings } from "./launch-settings.js";
import { LogLines, RecentLines } from "./log-lines.js";
import type { Prepared } from "./preflight.js";

export interface RunningVllm {
  readonly group: ProcessGroup;
  /** vLLM's main process has exited and its last lines are in. */
  readonly exited: Promise<ChildExit>;
  readonly recent: RecentLines;
  /** Stops the whole group (signal, grace, SIGKILL), then closes the log and removes the pid file. */
  shutDown(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Step 3: spawns vLLM (no shell) as the leader of its own process group, so a terminal's Ctrl-C reaches
 * only launch, which passes it on once to vLLM and its workers alike. Each line goes to the screen (escaped,
 * prefixed `[vllm]`) and, as printed, to the log file; the group id goes to the screen and the pid file.
 */
export function startVllm(plan: LaunchSettings, prepared: Prepared, io: CliIo): RunningVllm {
  const recent = new RecentLines();
  const log = (line: string) => {
    recent.add(line);
    io.err(`[vllm] ${escapeForTerminal(line)}\n`);
    prepared.log?.write(line);
  };
  const streams = { stdout: new LogLines(log), stderr: new LogLines(log) };
  io.err(`studio-serve: running ${escapeForTerminal(plan.built.shell)}\n`);
  const group = spawnGroup(prepared.vllmPath, plan.built.argv.slice(1), {
    env: { ...io.env, ...plan.built.env },
    onOutput: (stream, chunk) => {
      streams[stream].push(chunk);
      holdWhileBehind(io, group.child);
    },
  });
  // Listened for from the start: 'close' can come in the same turn as 'exit', before a later listener.
  const pipesClosed = new Promise((resolve) => group.child.once("close", resolve));
  const pgid = group.pgid;
  if (pgid !== undefined) {
    if (prepared.pidFile !== undefined) writePidFile(prepared.pidFile, pgid, io);
    io.err(
      `studio-serve: vLLM started (pid ${pgid}, process group ${pgid}). If studio-serve is killed, stop vLLM with: kill -TERM -- -${pgid}\n`,
    );
  }
  prepared.events.write({
    event: "started",
    pid: pgid,
    pgid,
    argv: plan.built.argv,
    ...(prepared.logFile === undefined ? {} : { logFile: prepared.logFile }),
  });
  // The pipes may stay open while an orphaned worker holds them: wait a moment for the last lines only.
  // The timer is not unref'd: were it the only thing left, Node would exit before the exit is reported.
  const exited = group.exited.then(async (exit) => {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([pipesClosed, new Promise((resolve) => (timer = setTimeout(resolve, 500)))]);
    clearTimeout(timer);
    streams.stdout.flush();
    streams.stderr.flush();
    return exit;
  });
  let closed = false;
  return {
    group,
    exited,
    recent,
    async shutDown(signal = "SIGTERM") {
      await group.stop({ graceMs: plan.stopGraceMs, signal });
      if (closed) return;
      closed = true;
      prepared.log?.close();
      if (prepared.pidFile !== undefined) rmSync(prepared.pidFile, { force: true });
    },
  };
}

/** Back-pressure: while launch's stderr is behind, vLLM's pipes are not read (vLLM waits, launch does not grow). */
function holdWhileBehind(io: CliIo, child: ChildProcess): void {
  const caughtUp = io.errCaughtUp?.();
  if (caughtUp === undefined || child.stdout?.isPaused()) return;
  child.stdout?.pause();
  child.stderr?.pause();
  void caughtUp.then(() => {
    child.stdout?.resume();
    child.stderr?.resume();
  });
}

/** The group id for `kill -- -<pgid>` after launch is gone; a planted link in its place is not followed. */
function writePidFile(path: string, pgid: number, io: CliIo): void {
  try {
    writeFreshFile(path, `${pgid}\n`);
  } catch (error) {
    if (!(error instanceof FileWriteError)) throw error;
    io.err(`studio-serve: --log-dir: no pid file: ${escapeForTerminal(error.message)}\n`);
  }
}
