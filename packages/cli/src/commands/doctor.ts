import { jsonForTerminal } from "@finetune-studio/internal";
import { checkListenAddress } from "@finetune-studio/serve-kit/internal";
import { evaluateDoctor, formatDoctorTable } from "../doctor/doctor-checks.js";
import { probeDoctor } from "../doctor/doctor-probes.js";
import { type CommandArgs, parseCommand, synopsisOf, usageLines } from "../shared/command-args.js";
import { JSON_FLAG } from "../shared/common-flags.js";
import { ExitCode, exitCodeHelp } from "../shared/exit-codes.js";
import { describedAs, flagHelp } from "../shared/flags.js";
import type { CliIo } from "../shared/io.js";
import { numberOrRaw } from "../shared/raw-values.js";
import { HOST_FLAG, SERVE_PORT_FLAG } from "../shared/serve-args.js";
import type { CliCommand } from "./command-type.js";

// Where vLLM will listen, as launch takes it (serve-kit's listen-address rule checks both).
const FLAGS = [
  describedAs(HOST_FLAG, "the address vLLM will listen on"),
  describedAs(SERVE_PORT_FLAG, "the port vLLM will listen on, checked free"),
  JSON_FLAG,
];
const DOCTOR_ARGS: CommandArgs = { name: "doctor", positionals: [], flags: FLAGS };

/** `studio-serve doctor`: a table of prerequisites, pass or fail, with the fix. Exit 1 when one fails. */
async function runDoctor(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseCommand(args, DOCTOR_ARGS);
  if (parsed.help) {
    io.out(HELP);
    return ExitCode.Ok;
  }
  const { host, port } = checkListenAddress({
    host: parsed.get(HOST_FLAG),
    port: numberOrRaw(parsed.get(SERVE_PORT_FLAG)),
  });
  const results = evaluateDoctor(await probeDoctor(io.env, host, port));
  const ok = results.every((result) => result.status !== "fail");
  if (parsed.get(JSON_FLAG)) io.out(`${jsonForTerminal({ ok, checks: results }, 2)}\n`);
  else io.out(formatDoctorTable(results));
  return ok ? ExitCode.Ok : ExitCode.Failure;
}

const HELP = `studio-serve doctor: check what serving a model with vLLM needs, and say how to fix what is missing.

${usageLines(DOCTOR_ARGS)}

Checks Python (3.8 or newer; current vLLM releases need 3.10+), vllm on PATH, an NVIDIA GPU and its
free memory (nvidia-smi), a hub login for private repositories (HF_TOKEN or the hub CLI's token),
and that the port is free. A required check that fails fails the command; warnings do not.

Options:
${flagHelp(FLAGS)}

${exitCodeHelp("doctor")}
`;

export const doctor: CliCommand = {
  name: "doctor",
  synopsis: [synopsisOf(DOCTOR_ARGS, "check the prerequisites")],
  help: HELP,
  flags: FLAGS,
  run: runDoctor,
};
