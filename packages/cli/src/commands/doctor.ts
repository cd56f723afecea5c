import { jsonForTerminal } from "@finetune-studio/internal";
import { checkListenAddress } from "@finetune-studio/serve-kit/internal";
import { evaluateDoctor, formatDoctorTable } from "../doctor/doctor-checks.js";
import { probeDoctor } from "../doctor/doctor-probes.js";
import { DEFAULT_LISTEN, JSON_FLAG } from "../shared/common-flags.js";
import { ExitCode } from "../shared/exit-codes.js";
import { describedAs, flagHelp, parseFlags, refuseExtraWords } from "../shared/flags.js";
import type { CliIo } from "../shared/io.js";
import { numberOrRaw } from "../shared/raw-values.js";
import { HOST_FLAG, SERVE_PORT_FLAG } from "../shared/serve-args.js";
import type { CliCommand } from "./command-type.js";

// Where vLLM will listen, as launch takes it (serve-kit's listen-address rule checks both).
const FLAGS = [
  describedAs(HOST_FLAG, `the address vLLM will listen on (default ${DEFAULT_LISTEN.host})`),
  describedAs(SERVE_PORT_FLAG, `the port vLLM will listen on, checked free (default ${DEFAULT_LISTEN.port})`),
  JSON_FLAG,
];

/** `studio-serve doctor`: a table of prerequisites, pass or fail, with the fix. Exit 1 when one fails. */
async function runDoctor(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseFlags(args, FLAGS);
  if (parsed.help) {
    io.out(HELP);
    return ExitCode.Ok;
  }
  refuseExtraWords(parsed.positionals);
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

Usage:
  studio-serve doctor [--host H] [--port P] [--json]

Checks Python (3.8 or newer; current vLLM releases need 3.10+), vllm on PATH, an NVIDIA GPU and its
free memory (nvidia-smi), a hub login for private repositories (HF_TOKEN or the hub CLI's token),
and that the port is free. Exits 1 when a required check fails; warnings do not fail.

Options:
${flagHelp(FLAGS)}
`;

export const doctor: CliCommand = {
  name: "doctor",
  synopsis: [["doctor [--host H] [--port P] [--json]", "check the prerequisites"]],
  help: HELP,
  flags: FLAGS,
  run: runDoctor,
};
