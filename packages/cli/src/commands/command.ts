import { homedir } from "node:os";
import { join } from "node:path";
import { jsonForTerminal } from "@finetune-studio/internal";
import { buildDockerCommand, buildServeCommand } from "@finetune-studio/serve-kit";
import { checkServeFits } from "../plan/fit-check.js";
import { absoluteLocalPaths } from "../shared/docker-paths.js";
import { ExitCode } from "../shared/exit-codes.js";
import { SERVE_FLAGS } from "../shared/help.js";
import { type CliIo, UsageError } from "../shared/io.js";
import { COMMAND_OPTIONS, INHERITED_KEY_NOTE, keySource, parseServeArgs } from "../shared/serve-args.js";
import type { CliCommand } from "./command-type.js";

/** `studio-serve command`: prints the vllm serve (or docker run) command, or the builder's whole output. */
async function runCommand(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseServeArgs("command", args, COMMAND_OPTIONS);
  if (parsed === "help") {
    io.out(HELP);
    return ExitCode.Ok;
  }
  if (!(await checkServeFits(parsed, io, `command ${parsed.kind}`))) return ExitCode.Failure;
  const { values } = parsed;
  const key = keySource(parsed, io.env);
  const apiKeyEnv = key?.name;
  if (key?.inherited === true) io.err(INHERITED_KEY_NOTE);
  // The key is referenced, never read: the printed command takes it from the variable when it runs.
  const keyReference = apiKeyEnv === undefined ? undefined : `\${${apiKeyEnv}}`;
  const served = values.docker === true ? absoluteLocalPaths(parsed.options) : parsed.options;
  const options = keyReference === undefined ? served : { ...served, apiKey: keyReference };
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
    io.out(`${jsonForTerminal(result, 2)}\n`);
  } else {
    const envPrefix = keyReference === undefined ? "" : `VLLM_API_KEY="${keyReference}" `;
    io.out(`${envPrefix}${result.shell}\n`);
    const keyNote = apiKeyEnv === undefined ? "" : `, key from $${apiKeyEnv}`;
    io.err(`clients: base URL ${result.client.baseURL}, model "${result.client.model}"${keyNote}\n`);
  }
  for (const warning of result.warnings) io.err(`warning: ${warning}\n`);
  return ExitCode.Ok;
}

/** The host's Hugging Face home, which the image expects at /root/.cache/huggingface. */
function defaultHfCache(env: NodeJS.ProcessEnv): string {
  return env.HF_HOME || join(env.HOME || homedir(), ".cache", "huggingface");
}

const HELP = `studio-serve command: print the command that serves a fine-tuned model with vLLM.

Usage:
  studio-serve command full <model> [options] [-- vllm options]
  studio-serve command lora <base> --adapter name=path [--adapter ...] [options] [-- vllm options]

${SERVE_FLAGS}

Output:
  --json                    print the builder's whole output: argv, env, shell, client, warnings
                            (a key appears as "\${NAME}", never its value)
  --docker                  print a docker run command for the official vllm/vllm-openai image
  --image I                 the image for --docker (default vllm/vllm-openai:latest; pin a tag)
  --hf-cache DIR            host directory mounted as the Hugging Face cache for --docker
                            (default $HF_HOME, else ~/.cache/huggingface)

Examples:
  studio-serve command full acme/support-8b --served-model-name support
  studio-serve command lora meta-llama/Llama-3.1-8B-Instruct --adapter support=/models/support-lora
`;

export const command: CliCommand = {
  name: "command",
  synopsis: [
    ["command full <model> [options] [-- vllm options]", "print the vllm serve command"],
    ["command lora <base> --adapter name=path ... [options]", ""],
  ],
  help: HELP,
  run: runCommand,
};
