import { homedir } from "node:os";
import { join } from "node:path";
import { jsonForTerminal } from "@finetune-studio/internal";
import { buildDockerCommand, buildServeCommand, DEFAULT_VLLM_IMAGE } from "@finetune-studio/serve-kit";
import { checkServeFits } from "../plan/fit-check.js";
import { synopsesOf, usageLines } from "../shared/command-args.js";
import { JSON_FLAG } from "../shared/common-flags.js";
import { absoluteLocalPaths } from "../shared/docker-paths.js";
import { ExitCode } from "../shared/exit-codes.js";
import { describedAs, flagHelp, switchFlag, textFlag } from "../shared/flags.js";
import { SERVE_HELP } from "../shared/help.js";
import { type CliIo, UsageError } from "../shared/io.js";
import {
  INHERITED_KEY_NOTE,
  keySource,
  parseServeArgs,
  SERVE_FLAGS,
  serveForms,
} from "../shared/serve-args.js";
import type { CliCommand } from "./command-type.js";

const WHOLE_OUTPUT_FLAG = describedAs(
  JSON_FLAG,
  `print the builder's whole output: argv, env, shell, client, warnings\n(a key appears as "\${NAME}", never its value)`,
);
const DOCKER_FLAG = switchFlag(
  "docker",
  "print a docker run command for the official vllm/vllm-openai image",
);
const IMAGE_FLAG = textFlag("image", {
  valueName: "I",
  field: "docker.image",
  help: "the image for --docker (pin a tag)",
  shows: DEFAULT_VLLM_IMAGE,
});
const HF_CACHE_FLAG = textFlag("hf-cache", {
  valueName: "DIR",
  field: "docker.hfCacheDir",
  help: "host directory mounted as the Hugging Face cache for --docker\n(default $HF_HOME, else ~/.cache/huggingface)",
});
const OUTPUT_FLAGS = [WHOLE_OUTPUT_FLAG, DOCKER_FLAG, IMAGE_FLAG, HF_CACHE_FLAG];
const COMMAND_FLAGS = [...SERVE_FLAGS, ...OUTPUT_FLAGS];
const COMMAND_FORMS = serveForms("command", COMMAND_FLAGS);

/** `studio-serve command`: prints the vllm serve (or docker run) command, or the builder's whole output. */
async function runCommand(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseServeArgs("command", args, COMMAND_FLAGS);
  if (parsed === "help") {
    io.out(HELP);
    return ExitCode.Ok;
  }
  if (!(await checkServeFits(parsed, io, `command ${parsed.kind}`))) return ExitCode.Failure;
  const { get } = parsed;
  const key = keySource(parsed, io.env);
  const apiKeyEnv = key?.name;
  if (key?.inherited === true) io.err(INHERITED_KEY_NOTE);
  // The key is referenced, never read: the printed command takes it from the variable when it runs.
  const keyReference = apiKeyEnv === undefined ? undefined : `\${${apiKeyEnv}}`;
  const docker = get(DOCKER_FLAG);
  const served = docker ? absoluteLocalPaths(parsed.options) : parsed.options;
  const options = keyReference === undefined ? served : { ...served, apiKey: keyReference };
  const helpFor = `command ${parsed.kind}`;
  const image = get(IMAGE_FLAG);
  const hfCache = get(HF_CACHE_FLAG);
  if (!docker) {
    for (const [flag, value] of [
      [IMAGE_FLAG, image],
      [HF_CACHE_FLAG, hfCache],
    ] as const) {
      if (value !== undefined) throw new UsageError(`--${flag.name}: only goes with --docker`, helpFor);
    }
  }
  const result = docker
    ? buildDockerCommand(options, {
        ...(image === undefined ? {} : { image }),
        hfCacheDir: hfCache ?? defaultHfCache(io.env),
      })
    : buildServeCommand(options);
  if (get(WHOLE_OUTPUT_FLAG)) {
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

${usageLines(...COMMAND_FORMS)}

${SERVE_HELP}

Output:
${flagHelp(OUTPUT_FLAGS)}

Examples:
  studio-serve command full acme/support-8b --served-model-name support
  studio-serve command lora meta-llama/Llama-3.1-8B-Instruct --adapter support=/models/support-lora
`;

export const command: CliCommand = {
  name: "command",
  synopsis: synopsesOf(COMMAND_FORMS, "print the vllm serve command"),
  help: HELP,
  flags: COMMAND_FLAGS,
  run: runCommand,
};
