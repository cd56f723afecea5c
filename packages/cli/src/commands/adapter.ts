import { hasTerminalControl } from "@finetune-studio/internal";
import { LAUNCH_PORT_FLAG } from "../shared/common-flags.js";
import { ExitCode } from "../shared/exit-codes.js";
import { flagHelp, parseFlags, refuseExtraWords } from "../shared/flags.js";
import { type CliIo, UsageError } from "../shared/io.js";
import { talkToLaunch } from "../shared/launch-control.js";
import { quoted } from "../shared/values.js";
import type { CliCommand } from "./command-type.js";

const FLAGS = [LAUNCH_PORT_FLAG];

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

async function runAdapter(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseFlags(args, FLAGS);
  if (parsed.help) {
    io.out(HELP);
    return ExitCode.Ok;
  }
  const [action, name, path, ...rest] = parsed.positionals;
  if (action !== "load" && action !== "unload") {
    throw new UsageError(`say load or unload (given ${quoted(action ?? "")})`);
  }
  if (name === undefined || !NAME.test(name)) {
    throw new UsageError(
      "<name>: must be 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit",
    );
  }
  const port = parsed.get(LAUNCH_PORT_FLAG);
  if (action === "unload") {
    refuseExtraWords(parsed.positionals.slice(2));
    return await talkToLaunch(port, { op: "adapter", action, name }, io);
  }
  if (path === undefined || path === "" || hasTerminalControl(path) || path.length > 4096) {
    throw new UsageError("<path>: load needs the adapter's path (a directory or a Hugging Face repo)");
  }
  refuseExtraWords(rest);
  return await talkToLaunch(port, { op: "adapter", action, name, path }, io);
}

const HELP = `studio-serve adapter: load or unload a LoRA adapter on every vLLM instance of a running
\`launch ... --instances N --runtime-lora\`, and report each instance's answer.

Usage:
  studio-serve adapter load <name> <path> [--port P]
  studio-serve adapter unload <name> [--port P]

${flagHelp(FLAGS)}

The launch remembers the adapters loaded this way, and a reload loads them again. The launch needs
--runtime-lora (VLLM_ALLOW_RUNTIME_LORA_UPDATING=True): anyone who can call vLLM can then load
adapters from paths on that machine, so keep it to trusted networks. Exit code 0 when every instance
agreed, 1 otherwise.
`;

export const adapter: CliCommand = {
  name: "adapter",
  synopsis: [
    ["adapter load|unload <name> [<path>] [--port P]", "change runtime LoRA adapters on every instance"],
  ],
  help: HELP,
  flags: FLAGS,
  run: runAdapter,
};
