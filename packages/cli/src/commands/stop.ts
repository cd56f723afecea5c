import { existsSync } from "node:fs";
import { escapeForTerminal } from "@finetune-studio/internal";
import { sleep } from "../shared/abortable-sleep.js";
import { type CommandArgs, parseCommand, synopsisOf, usageLines } from "../shared/command-args.js";
import { LAUNCH_PORT_FLAG } from "../shared/common-flags.js";
import { ExitCode, exitCodeHelp } from "../shared/exit-codes.js";
import { describedAs, flagHelp } from "../shared/flags.js";
import type { CliIo } from "../shared/io.js";
import { STOP_TIMEOUT_FLAG } from "../shared/launch-flags.js";
import { callControl } from "../supervise/control.js";
import { cleanUpLeftLaunch, controlSocketOf, findLaunch, runtimeDirOf } from "../supervise/runtime-dir.js";
import type { CliCommand } from "./command-type.js";

const FLAGS = [
  LAUNCH_PORT_FLAG,
  describedAs(
    STOP_TIMEOUT_FLAG,
    "seconds each process group gets after its stop signal before SIGKILL, when\nstopping what a killed launch left",
  ),
];

const STOP_ARGS: CommandArgs = { name: "stop", positionals: [], flags: FLAGS };

/** How often `stop` looks whether the launch it asked to stop is gone. */
const GONE_POLL_MS = 200;

async function runStop(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseCommand(args, STOP_ARGS);
  if (parsed.help) {
    io.out(HELP);
    return ExitCode.Ok;
  }
  const port = parsed.get(LAUNCH_PORT_FLAG);
  const graceSeconds = parsed.get(STOP_TIMEOUT_FLAG);
  const say = (line: string) => io.err(`studio-serve: ${escapeForTerminal(line)}\n`);
  const dir = runtimeDirOf(port, io.env);
  const found = await findLaunch(dir);
  if (found.kind === "foreign") {
    say(found.problem);
    return ExitCode.Failure;
  }
  if (found.kind === "nothing") {
    say(`no launch runs on port ${port} for this user, and none left anything running`);
    return ExitCode.NotFound;
  }
  if (found.kind === "left") {
    const problem = await cleanUpLeftLaunch(dir, found, graceSeconds * 1000, say);
    if (problem === undefined) return ExitCode.Ok;
    say(problem);
    return ExitCode.Failure;
  }
  const outcome = await callControl(controlSocketOf(dir), { op: "stop" }, say);
  if (outcome !== true) {
    say(`the launch on port ${port} did not take the request to stop`);
    return ExitCode.Failure;
  }
  // The launch removes its directory last, once HAProxy and every instance are gone.
  const deadline = Date.now() + graceSeconds * 1000 + 30_000;
  const never = new AbortController().signal;
  while (existsSync(dir) && Date.now() < deadline) await sleep(GONE_POLL_MS, never);
  if (existsSync(dir)) {
    say(`the launch on port ${port} is still stopping; it forces its processes after its own --stop-timeout`);
    return ExitCode.Failure;
  }
  say(`the launch on port ${port} stopped, and everything it ran with it`);
  return ExitCode.Ok;
}

const HELP = `studio-serve stop: stop the \`launch\` serving on a port (of one instance or many), or what a killed one left running.

${usageLines(STOP_ARGS)}

${flagHelp(FLAGS)}

A running launch is asked to stop as Ctrl-C would (HAProxy finishes what it has, each vLLM instance
gets SIGTERM, then SIGKILL after the launch's own --stop-timeout), and stop waits until it is gone.
If the launch itself was killed, HAProxy and its instances go on serving: stop finds them from the
state the launch kept, checks they are the same processes (never a reused pid), and stops them.

${exitCodeHelp("stop")}
`;

export const stop: CliCommand = {
  name: "stop",
  synopsis: [synopsisOf(STOP_ARGS, "stop a launch, or what a killed one left running")],
  help: HELP,
  flags: FLAGS,
  run: runStop,
};
