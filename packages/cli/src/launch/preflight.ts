import { mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import { escapeForTerminal, probePort } from "@finetune-studio/internal";
import { ExitCode } from "../exit-codes.js";
import type { CliIo } from "../io.js";
import { findExecutable } from "../which.js";
import { type EventLog, eventFile, NO_EVENTS } from "./events.js";
import type { LaunchPlan } from "./plan.js";

/** What step 2 found: where vllm is, and where its output and launch's events go. */
export interface Prepared {
  vllmPath: string;
  /** vLLM's output, as it printed it (`<log-dir>/<instance>.log`), open for appending. */
  logFd: number | undefined;
  logFile: string | undefined;
  /** `<log-dir>/<instance>.pid`: the process group id, for when launch itself is killed. */
  pidFile: string | undefined;
  events: EventLog;
}

/** Step 2: vllm is on PATH, the port is free and the log directory is writable; or the exit code. */
export async function preflight(plan: LaunchPlan, io: CliIo): Promise<Prepared | number> {
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
    return { vllmPath, logFd: undefined, logFile: undefined, pidFile: undefined, events: NO_EVENTS };
  }
  const logFile = join(plan.logDir, `${plan.instance}.log`);
  try {
    mkdirSync(plan.logDir, { recursive: true, mode: 0o700 });
    const logFd = openSync(logFile, "a", 0o600);
    return {
      vllmPath,
      logFd,
      logFile,
      pidFile: join(plan.logDir, `${plan.instance}.pid`),
      events: eventFile(join(plan.logDir, "events.jsonl"), plan.instance),
    };
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    io.err(`studio-serve: --log-dir: cannot write to ${escapeForTerminal(plan.logDir)} (${reason})\n`);
    return ExitCode.Failure;
  }
}
