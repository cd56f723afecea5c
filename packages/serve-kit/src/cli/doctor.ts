import { checkHost, checkPort } from "../internal/validate.js";
import { evaluateDoctor, formatDoctorTable } from "./doctor-checks.js";
import { probeDoctor } from "./doctor-probes.js";
import { ExitCode } from "./exit-codes.js";
import { DOCTOR_HELP } from "./help.js";
import { type CliIo, UsageError } from "./io.js";
import { numberOrRaw, parseCommandLine } from "./serve-args.js";

const DOCTOR_OPTIONS = {
  host: { type: "string" },
  port: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/** `studio-serve doctor`: a table of prerequisites, pass or fail, with the fix. Exit 1 when one fails. */
export async function runDoctor(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandLine("doctor", args, DOCTOR_OPTIONS);
  if (values.help === true) {
    io.out(DOCTOR_HELP);
    return ExitCode.Ok;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`, "doctor");
  const host = values.host === undefined ? "127.0.0.1" : checkHost(values.host, "host");
  const port = values.port === undefined ? 8000 : checkPort(numberOrRaw(values.port), "port");
  const results = evaluateDoctor(await probeDoctor(io.env, host, port));
  const ok = results.every((result) => result.status !== "fail");
  if (values.json === true) io.out(`${JSON.stringify({ ok, checks: results }, null, 2)}\n`);
  else io.out(formatDoctorTable(results));
  return ok ? ExitCode.Ok : ExitCode.Failure;
}
