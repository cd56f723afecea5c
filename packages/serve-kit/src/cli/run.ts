import { createRequire } from "node:module";
import { ServeConfigError } from "../errors.js";
import { runCommand } from "./command.js";
import { runDoctor } from "./doctor.js";
import { ExitCode } from "./exit-codes.js";
import { helpFor, MAIN_HELP } from "./help.js";
import { type CliIo, UsageError } from "./io.js";
import { runLaunch } from "./launch.js";
import { runNginx } from "./nginx.js";
import { cliField } from "./serve-args.js";

const SUBCOMMANDS: Record<string, (args: readonly string[], io: CliIo) => number | Promise<number>> = {
  command: runCommand,
  launch: runLaunch,
  doctor: runDoctor,
  nginx: runNginx,
};

/** Runs `studio-serve <args>` and resolves with the exit code. Bad input is one line on stderr and code 2. */
export async function runCli(args: readonly string[], io: CliIo): Promise<number> {
  const [subcommand, ...rest] = args;
  if (subcommand === undefined) {
    io.err(MAIN_HELP);
    return ExitCode.Usage;
  }
  if (subcommand === "--help" || subcommand === "-h") {
    io.out(MAIN_HELP);
    return ExitCode.Ok;
  }
  if (subcommand === "help") {
    io.out(helpFor(rest[0]));
    return ExitCode.Ok;
  }
  if (subcommand === "--version" || subcommand === "-v") {
    const { version } = createRequire(import.meta.url)("../../package.json") as { version: string };
    io.out(`${version}\n`);
    return ExitCode.Ok;
  }
  const run = SUBCOMMANDS[subcommand];
  try {
    if (run === undefined) throw new UsageError(`unknown command "${subcommand}"`);
    return await run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      const help =
        error.helpFor === undefined ? "studio-serve --help" : `studio-serve ${error.helpFor} --help`;
      io.err(`studio-serve: ${error.message} (see ${help})\n`);
      return ExitCode.Usage;
    }
    if (error instanceof ServeConfigError) {
      io.err(`studio-serve: ${cliField(error.field)}: ${error.rule} (given ${error.given})\n`);
      return ExitCode.Usage;
    }
    throw error;
  }
}
