import { escapeForTerminal } from "@finetune-studio/internal";
import { callControl } from "../fleet/control.js";
import { controlSocketOf, runtimeDirOf } from "../fleet/runtime-dir.js";
import { ExitCode } from "../shared/exit-codes.js";
import { type CliIo, UsageError } from "../shared/io.js";
import { parseCommandLine } from "../shared/serve-args.js";
import type { CliCommand } from "./command-type.js";

/** The port of the launch a control command talks to: --port, default 8000 as launch's. */
export function controlPort(value: unknown, helpFor: string): number {
  if (value === undefined) return 8000;
  const port = typeof value === "string" && /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!(port >= 1 && port <= 65535)) {
    throw new UsageError(
      `--port: must be the port the launch serves on, 1 to 65535 (given ${JSON.stringify(String(value).slice(0, 20))})`,
      helpFor,
    );
  }
  return port;
}

/** Passes the launch's progress lines on; the exit code is its outcome. */
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

async function runReload(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandLine("reload", args, {
    port: { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help === true) {
    io.out(HELP);
    return ExitCode.Ok;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`, "reload");
  return await talkToLaunch(controlPort(values.port, "reload"), { op: "reload" }, io);
}

const HELP = `studio-serve reload: restart the vLLM instances of a running \`launch ... --instances N\` one at
a time (vLLM reads the weights again), while the others answer: no request fails.

Usage:
  studio-serve reload [--port P]

  --port P    the port the launch serves on (its HAProxy; default 8000)

Each instance in turn: HAProxy drains it (new requests go to the others), its open requests finish, it
stops and starts again, answers a one-token completion, gets the adapters loaded at runtime back,
and takes its requests again. Progress is printed as it goes. A reload already running is joined.
Exit code 0 when every instance came back; 1 when one did not (the others keep serving) or with
one instance (a reload would drop requests). SIGHUP to the launch does the same.
`;

export const reload: CliCommand = {
  name: "reload",
  synopsis: [["reload [--port P]", "restart the instances of a launch one at a time, no request failing"]],
  help: HELP,
  run: runReload,
};
