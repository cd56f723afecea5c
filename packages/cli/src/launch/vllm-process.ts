import { closeSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { type ChildExit, escapeForTerminal, type ProcessGroup, spawnGroup } from "@finetune-studio/internal";
import type { CliIo } from "../io.js";
import { LogLines, RecentLines } from "../log-lines.js";
import type { LaunchPlan } from "./plan.js";
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
export function startVllm(plan: LaunchPlan, prepared: Prepared, io: CliIo): RunningVllm {
  const recent = new RecentLines();
  const log = (line: string) => {
    recent.add(line);
    io.err(`[vllm] ${escapeForTerminal(line)}\n`);
    if (prepared.logFd !== undefined) writeSync(prepared.logFd, `${line}\n`);
  };
  const streams = { stdout: new LogLines(log), stderr: new LogLines(log) };
  io.err(`studio-serve: running ${escapeForTerminal(plan.built.shell)}\n`);
  const group = spawnGroup(prepared.vllmPath, plan.built.argv.slice(1), {
    env: { ...io.env, ...plan.built.env },
    onOutput: (stream, chunk) => streams[stream].push(chunk),
  });
  const pgid = group.pgid;
  if (pgid !== undefined) {
    if (prepared.pidFile !== undefined) writeFileSync(prepared.pidFile, `${pgid}\n`, { mode: 0o600 });
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
  const exited = group.exited.then(async (exit) => {
    await Promise.race([new Promise((resolve) => group.child.once("close", resolve)), delay(500)]);
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
      if (prepared.logFd !== undefined) closeSync(prepared.logFd);
      if (prepared.pidFile !== undefined) rmSync(prepared.pidFile, { force: true });
    },
  };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
