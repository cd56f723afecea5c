import { type CommandArgs, parseCommand, synopsisOf, usageLines } from "../shared/command-args.js";
import { LAUNCH_PORT_FLAG } from "../shared/common-flags.js";
import { ExitCode } from "../shared/exit-codes.js";
import { flagHelp } from "../shared/flags.js";
import type { CliIo } from "../shared/io.js";
import { talkToLaunch } from "../shared/launch-control.js";
import type { CliCommand } from "./command-type.js";

const FLAGS = [LAUNCH_PORT_FLAG];
const RELOAD_ARGS: CommandArgs = { name: "reload", positionals: [], flags: FLAGS };

async function runReload(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseCommand(args, RELOAD_ARGS);
  if (parsed.help) {
    io.out(HELP);
    return ExitCode.Ok;
  }
  return await talkToLaunch(parsed.get(LAUNCH_PORT_FLAG), { op: "reload" }, io);
}

const HELP = `studio-serve reload: restart the vLLM instances of a running \`launch ... --instances N\` one at
a time (vLLM reads the weights again), while the others answer: no request fails.

${usageLines(RELOAD_ARGS)}

${flagHelp(FLAGS)}

Each instance in turn: HAProxy drains it (new requests go to the others), its open requests finish, it
stops and starts again, answers a one-token completion, gets the adapters loaded at runtime back,
and takes its requests again. Progress is printed as it goes. A reload already running is joined.
Exit code 0 when every instance came back; 1 when one did not (the others keep serving) or with
one instance (a reload would drop requests). SIGHUP to the launch does the same.
`;

export const reload: CliCommand = {
  name: "reload",
  synopsis: [synopsisOf(RELOAD_ARGS, "restart the instances of a launch one at a time, no request failing")],
  help: HELP,
  flags: FLAGS,
  run: runReload,
};
