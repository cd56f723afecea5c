// The main help text, built from the command registry so a new command shows up by being registered.
import { ENGINE_OPTION_LIST } from "@finetune-studio/serve-kit";
import type { CliCommand } from "../commands/command-type.js";

/** `--flag VALUE` and its line, aligned as the rest of the help. */
function flagLine(usage: string, help: string): string {
  const width = 26;
  return usage.length < width - 1
    ? `  ${usage.padEnd(width)}${help}`
    : `  ${usage}\n  ${"".padEnd(width)}${help}`;
}

/** The help lines of the engine options that apply to LoRA only, or to both kinds, from serve-kit's table. */
function engineLines(loraOnly: boolean): string {
  return ENGINE_OPTION_LIST.filter((option) => option.loraOnly === loraOnly)
    .map((option) =>
      flagLine(
        option.cli.valueName === null ? `${option.flag}` : `${option.flag} ${option.cli.valueName}`,
        option.cli.help,
      ),
    )
    .join("\n");
}

/** The engine options' flags in one list, for a help text that points to `command --help` for their lines. */
export const ENGINE_FLAG_LIST = ENGINE_OPTION_LIST.map((option) =>
  option.cli.valueName === null ? `--[no-]${option.flag.slice(2)}` : `${option.flag} ${option.cli.valueName}`,
).join(", ");

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

/** The flags `command` and `launch` share, in their help texts. */
export const SERVE_FLAGS = `Where it listens:
  --host H                  listen address (default 127.0.0.1: only this machine; 0.0.0.0 for all)
  --port P                  listen port (default 8000)
  --api-key-env NAME        require the key held in the environment variable NAME (sent to vLLM
                            as VLLM_API_KEY; clients send "Authorization: Bearer <key>")

The model's name:
  --served-model-name N     the name clients send in "model" (default: the model path itself); with
                            lora, the name of the base model without an adapter

LoRA (base model plus adapters):
  --adapter name=path       an adapter; repeat for several. Clients send the name in "model"
${engineLines(true)}

vLLM engine (each checked here; the same flag after -- is refused once it is set):
${engineLines(false)}

Will it fit? For a local model directory, the plan of studio-serve plan runs first:
  --gpu NAME                the GPU to plan for, e.g. L4, A100-80GB, H100 (default: nvidia-smi's);
                            a warning names the flag that would make the model fit
  --strict                  refuse to start when it will not fit, instead of warning

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

Exit codes: 0 ok, 1 failure (a failed check, a taken port; plan: it does not fit), 2 bad arguments,
3 smoke completion failed, 4 plan could not read the model, 70 unexpected error, 124 not ready before
--timeout, 127 vllm not on PATH; launch otherwise exits with vLLM's code.
`;
}
