import { createRequire } from "node:module";
import { escapeForTerminal } from "@finetune-studio/internal";
import { ServeConfigError } from "@finetune-studio/serve-kit";
import { COMMANDS, findCommand } from "./commands/registry.js";
import { didYouMean } from "./shared/did-you-mean.js";
import { ExitCode } from "./shared/exit-codes.js";
import { mainHelp } from "./shared/help.js";
import { type CliIo, UsageError } from "./shared/io.js";
import { cliField, cliRule } from "./shared/serve-args.js";
import { quoted } from "./shared/values.js";

/** Runs `studio-serve <args>` and resolves with the exit code. Bad input is one line on stderr and code 2. */
export async function runCli(args: readonly string[], io: CliIo): Promise<number> {
  const [subcommand, ...rest] = args;
  if (subcommand === undefined) {
    io.err(mainHelp(COMMANDS));
    return ExitCode.Usage;
  }
  if (subcommand === "--help" || subcommand === "-h") {
    io.out(mainHelp(COMMANDS));
    return ExitCode.Ok;
  }
  if (subcommand === "help") {
    const topic = rest[0] === undefined ? undefined : findCommand(rest[0]);
    io.out(topic === undefined ? mainHelp(COMMANDS) : topic.help);
    return ExitCode.Ok;
  }
  if (subcommand === "--version" || subcommand === "-v") {
    const { version } = createRequire(import.meta.url)("../package.json") as { version: string };
    io.out(`${version}\n`);
    return ExitCode.Ok;
  }
  const command = findCommand(subcommand);
  try {
    if (command === undefined) {
      const names = COMMANDS.map((entry) => entry.name);
      throw new UsageError(`unknown command ${quoted(subcommand)}${didYouMean(subcommand, names)}`);
    }
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      // The help of the command that was run, or of its kind (`command lora`) when the error names it.
      const helpFor = error.helpFor ?? command?.name;
      const help = helpFor === undefined ? "studio-serve --help" : `studio-serve ${helpFor} --help`;
      // What the user typed is quoted in the message; escaped too, so nothing in it can steer the terminal.
      io.err(`studio-serve: ${escapeForTerminal(error.message)} (see ${help})\n`);
      return ExitCode.Usage;
    }
    if (error instanceof ServeConfigError) {
      // A library's rule broken: named by the flag that set the field, from the command's declarations.
      const flags = command?.flags ?? [];
      const field = cliField(error.field, flags);
      io.err(
        `${escapeForTerminal(`studio-serve: ${field}: ${cliRule(error.rule, flags)} (given ${error.given})`)}\n`,
      );
      return ExitCode.Usage;
    }
    throw error;
  }
}
