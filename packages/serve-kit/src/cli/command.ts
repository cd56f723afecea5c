import { homedir } from "node:os";
import { join } from "node:path";
import { buildDockerCommand } from "../docker-command.js";
import { buildServeCommand } from "../serve-command.js";
import { ExitCode } from "./exit-codes.js";
import { COMMAND_HELP } from "./help.js";
import { type CliIo, UsageError } from "./io.js";
import { COMMAND_OPTIONS, parseServeArgs } from "./serve-args.js";

/** `studio-serve command`: prints the vllm serve (or docker run) command, or the builder's whole output. */
export function runCommand(args: readonly string[], io: CliIo): number {
  const parsed = parseServeArgs("command", args, COMMAND_OPTIONS);
  if (parsed === "help") {
    io.out(COMMAND_HELP);
    return ExitCode.Ok;
  }
  const { values, apiKeyEnv } = parsed;
  // The key is referenced, never read: the printed command takes it from the variable when it runs.
  const keyReference = apiKeyEnv === undefined ? undefined : `\${${apiKeyEnv}}`;
  const options = keyReference === undefined ? parsed.options : { ...parsed.options, apiKey: keyReference };
  const helpFor = `command ${parsed.kind}`;
  if (values.docker !== true) {
    for (const flag of ["image", "hf-cache"]) {
      if (values[flag] !== undefined) throw new UsageError(`--${flag}: only goes with --docker`, helpFor);
    }
  }
  const result =
    values.docker === true
      ? buildDockerCommand(options, {
          ...(values.image === undefined ? {} : { image: values.image as string }),
          hfCacheDir: (values["hf-cache"] as string | undefined) ?? defaultHfCache(io.env),
        })
      : buildServeCommand(options);
  if (values.json === true) {
    io.out(`${JSON.stringify(result, null, 2)}\n`);
  } else {
    const envPrefix = keyReference === undefined ? "" : `VLLM_API_KEY="${keyReference}" `;
    io.out(`${envPrefix}${result.shell}\n`);
    io.err(`clients: base URL ${result.client.baseURL}, model "${result.client.model}"\n`);
  }
  for (const warning of result.warnings) io.err(`warning: ${warning}\n`);
  return ExitCode.Ok;
}

/** The host's Hugging Face home, which the image expects at /root/.cache/huggingface. */
function defaultHfCache(env: NodeJS.ProcessEnv): string {
  return env.HF_HOME || join(env.HOME || homedir(), ".cache", "huggingface");
}
