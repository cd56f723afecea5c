// The main help text, built from the command registry so a new command shows up by being registered.
import type { CliCommand } from "./commands/command-type.js";

/** The flags `command` and `launch` share, in their help texts. */
export const SERVE_FLAGS = `Where it listens:
  --host H                  listen address (default 127.0.0.1: only this machine; 0.0.0.0 for all)
  --port P                  listen port (default 8000)
  --api-key-env NAME        require the key held in the environment variable NAME (sent to vLLM
                            as VLLM_API_KEY; clients send "Authorization: Bearer <key>")

Full model:
  --served-model-name N     the name clients send in "model" (default: the model path itself)

LoRA (base model plus adapters):
  --adapter name=path       an adapter; repeat for several. Clients send the name in "model"
  --max-lora-rank R         largest adapter rank: 1, 8, 16, 32, 64, 128, 256, 320 or 512 (vLLM: 16)
  --max-loras K             adapters in one batch (vLLM: 1)

Anything after -- goes to vllm serve as is, e.g. -- --max-model-len 8192 --dtype bfloat16`;

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

Exit codes: 0 ok, 1 failure (a failed check, a taken port), 2 bad arguments, 3 smoke completion
failed, 124 not ready before --timeout, 127 vllm not on PATH; launch otherwise exits with vLLM's code.
`;
}
