import { jsonForTerminal } from "@finetune-studio/internal";
import { checkListenAddress } from "@finetune-studio/serve-kit/internal";
import { evaluateDoctor, formatDoctorTable } from "../doctor/doctor-checks.js";
import { probeDoctor } from "../doctor/doctor-probes.js";
import { ExitCode } from "../shared/exit-codes.js";
import { type CliIo, UsageError } from "../shared/io.js";
import { numberOrRaw, parseCommandLine } from "../shared/serve-args.js";
import type { CliCommand } from "./command-type.js";

const DOCTOR_OPTIONS = {
  host: { type: "string" },
  port: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/** `studio-serve doctor`: a table of prerequisites, pass or fail, with the fix. Exit 1 when one fails. */
async function runDoctor(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandLine("doctor", args, DOCTOR_OPTIONS);
  if (values.help === true) {
    io.out(HELP);
    return ExitCode.Ok;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`, "doctor");
  const { host, port } = checkListenAddress({ host: values.host, port: numberOrRaw(values.port) });
  const results = evaluateDoctor(await probeDoctor(io.env, host, port));
  const ok = results.every((result) => result.status !== "fail");
  if (values.json === true) io.out(`${jsonForTerminal({ ok, checks: results }, 2)}\n`);
  else io.out(formatDoctorTable(results));
  return ok ? ExitCode.Ok : ExitCode.Failure;
}

const HELP = `studio-serve doctor: check what serving a model with vLLM needs, and say how to fix what is missing.

Usage:
  studio-serve doctor [--host H] [--port P] [--json]

Checks Python (3.8 or newer; current vLLM releases need 3.10+), vllm on PATH, an NVIDIA GPU and its
free memory (nvidia-smi), a hub login for private repositories (HF_TOKEN or the hub CLI's token),
and that the port is free. Exits 1 when a required check fails; warnings do not fail.
`;

export const doctor: CliCommand = {
  name: "doctor",
  synopsis: [["doctor [--host H] [--port P] [--json]", "check the prerequisites"]],
  help: HELP,
  run: runDoctor,
};
