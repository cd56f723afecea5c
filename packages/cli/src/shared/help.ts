// The main help text, built from the command registry so a new command shows up by being registered.
import type { CliCommand } from "../commands/command-type.js";
import { GPU_FLAGS } from "./common-flags.js";
import { engineFlagsFor } from "./engine-flags.js";
import { exitCodeHelp } from "./exit-codes.js";
import { flagHelp } from "./flags.js";
import {
  ADAPTER_FLAG,
  HOST_FLAG,
  SERVE_KEY_FLAG,
  SERVE_PORT_FLAG,
  SERVED_NAME_FLAG,
  STRICT_FLAG,
} from "./serve-args.js";

/** A comma-separated list cut into indented lines of the help's width. */
export function wrapList(list: string): string {
  const lines: string[] = [];
  for (const item of list.split(", ")) {
    const last = lines.at(-1);
    if (last !== undefined && `${last}, ${item}`.length <= 100) lines[lines.length - 1] = `${last}, ${item}`;
    else lines.push(`  ${item}`);
  }
  return lines.join(",\n");
}

/** The help of the flags `command` and `launch` share, from their declarations and serve-kit's table. */
export const SERVE_HELP = `Where it listens:
${flagHelp([HOST_FLAG, SERVE_PORT_FLAG, SERVE_KEY_FLAG])}

The model's name:
${flagHelp([SERVED_NAME_FLAG])}

LoRA (base model plus adapters):
${flagHelp([ADAPTER_FLAG, ...engineFlagsFor(true)])}

vLLM engine (each checked here; the same flag after -- is refused once it is set):
${flagHelp(engineFlagsFor(false))}

Will it fit? For a local model directory, the plan of studio-serve plan runs first:
${flagHelp([...GPU_FLAGS, STRICT_FLAG])}
  (a warning names the flag that would make the model fit)

Anything after -- goes to vllm serve as is, e.g. -- --seed 42 --enable-chunked-prefill`;

export function mainHelp(commands: readonly CliCommand[]): string {
  const lines = commands.flatMap((entry) => entry.synopsis);
  const width = Math.max(...lines.map(([usage]) => usage.length)) + 2;
  const usage = lines
    .map(([text, summary]) => `  studio-serve ${text.padEnd(width)}${summary}`.trimEnd())
    .join("\n");
  return `studio-serve: serve a model fine-tuned in Finetune Studio with vLLM, on your own machine.

Usage:
${usage}

Every command takes --help. Secrets never go on the command line: --api-key-env names the
environment variable that holds the key, and vLLM receives it as VLLM_API_KEY.

${exitCodeHelp()}
`;
}
