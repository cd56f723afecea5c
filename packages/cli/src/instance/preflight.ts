import { lstatSync } from "node:fs";
import { join } from "node:path";
import { escapeForTerminal, probePort } from "@finetune-studio/internal";
import { ExitCode } from "../shared/exit-codes.js";
import type { CliIo } from "../shared/io.js";
import { FileWriteError, makeDirectories } from "../shared/safe-files.js";
import { findExecutable } from "../shared/which.js";
import { type EventLog, eventFile, NO_EVENTS } from "./events.js";
import type { LaunchSettings } from "./launch-settings.js";
import { LogFile } from "./log-file.js";

/** What step 2 found: where vllm is, and where its output and launch's events go. */
export interface Prepared {
  vllmPath: string;
  /** vLLM's output, as it printed it (`<log-dir>/<instance>.log`, rotated to `.log.1`), open for appending. */
  log: LogFile | undefined;
  logFile: string | undefined;
  /** `<log-dir>/<instance>.pid`: the process group id, for when launch itself is killed. */
  pidFile: string | undefined;
  events: EventLog;
}

/** Step 2: vllm is on PATH, the port is free and the log directory is writable; or the exit code. */
export async function preflight(plan: LaunchSettings, io: CliIo): Promise<Prepared | number> {
  const vllmPath = await findExecutable("vllm", io.env.PATH);
  if (vllmPath === undefined) {
    io.err(
      "studio-serve: vllm is not on PATH. Install it with: pip install vllm (Linux, Python 3.10+, an NVIDIA GPU)\n" +
        `  or run it in docker: studio-serve command ${plan.kind} ... --docker\n`,
    );
    return ExitCode.NotFound;
  }
  const { host, port } = plan.built.listen;
  const portState = await probePort(host, port);
  if (portState.state === "in-use") {
    io.err(
      `studio-serve: --port: ${host}:${port} is already in use; stop what listens there or choose another --port\n`,
    );
    return ExitCode.Failure;
  }
  if (portState.state === "unusable") {
    io.err(`studio-serve: --host: cannot listen on ${host}:${port} (${portState.reason})\n`);
    return ExitCode.Failure;
  }
  if (plan.logDir === undefined) {
    return { vllmPath, log: undefined, logFile: undefined, pidFile: undefined, events: NO_EVENTS };
  }
  const logFile = join(plan.logDir, `${plan.instance}.log`);
  const pidFile = join(plan.logDir, `${plan.instance}.pid`);
  try {
    makeDirectories(plan.logDir, 0o700);
    // A planted link is refused here, before vLLM starts, for each file launch will create.
    if (lstatOrUndefined(pidFile)?.isSymbolicLink()) {
      throw new FileWriteError(
        `${pidFile}: is a symbolic link; it is not followed (remove it, or choose another directory)`,
      );
    }
    const events = eventFile(join(plan.logDir, "events.jsonl"), plan.instance);
    return { vllmPath, log: new LogFile(logFile), logFile, pidFile, events };
  } catch (error) {
    const reason =
      error instanceof FileWriteError
        ? error.message
        : ((error as NodeJS.ErrnoException).code ?? String(error));
    io.err(
      `studio-serve: --log-dir: cannot write to ${escapeForTerminal(plan.logDir)} (${escapeForTerminal(reason)})\n`,
    );
    return ExitCode.Failure;
  }
}

function lstatOrUndefined(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
