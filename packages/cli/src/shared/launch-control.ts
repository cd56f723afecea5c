import { escapeForTerminal } from "@finetune-studio/internal";
import { callControl } from "../supervise/control.js";
import { controlSocketOf, runtimeDirOf } from "../supervise/runtime-dir.js";
import { ExitCode } from "./exit-codes.js";
import type { CliIo } from "./io.js";

/** Asks the launch on `port` to do `request`, passing its progress lines on; the exit code is its outcome. */
export async function talkToLaunch(
  port: number,
  request: Parameters<typeof callControl>[1],
  io: CliIo,
): Promise<number> {
  const outcome = await callControl(controlSocketOf(runtimeDirOf(port, io.env)), request, (line) =>
    io.err(`${escapeForTerminal(line)}\n`),
  );
  if (outcome === "unreachable") {
    io.err(
      `studio-serve: no launch runs on port ${port} for this user (start one with launch ... --instances N)\n`,
    );
    return ExitCode.Failure;
  }
  return outcome ? ExitCode.Ok : ExitCode.Failure;
}
