import { hasTerminalControl } from "@finetune-studio/internal";
import { ExitCode } from "../shared/exit-codes.js";
import { type CliIo, UsageError } from "../shared/io.js";
import { parseCommandLine } from "../shared/serve-args.js";
import type { CliCommand } from "./command-type.js";
import { controlPort, talkToLaunch } from "./reload.js";

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

async function runAdapter(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandLine("adapter", args, {
    port: { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help === true) {
    io.out(HELP);
    return ExitCode.Ok;
  }
  const [action, name, path, ...rest] = positionals;
  if (action !== "load" && action !== "unload") {
    throw new UsageError(`say load or unload (given ${JSON.stringify(action ?? "")})`, "adapter");
  }
  if (name === undefined || !NAME.test(name)) {
    throw new UsageError(
      "<name>: must be 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit",
      "adapter",
    );
  }
  const port = controlPort(values.port, "adapter");
  if (action === "unload") {
    if (path !== undefined) throw new UsageError(`unexpected argument "${path}"`, "adapter");
    return await talkToLaunch(port, { op: "adapter", action, name }, io);
  }
  if (path === undefined || path === "" || hasTerminalControl(path) || path.length > 4096) {
    throw new UsageError(
      "<path>: load needs the adapter's path (a directory or a Hugging Face repo)",
      "adapter",
    );
  }
  if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}"`, "adapter");
  return await talkToLaunch(port, { op: "adapter", action, name, path }, io);
}

const HELP = `studio-serve adapter: load or unload a LoRA adapter on every vLLM instance of a running
\`launch ... --instances N --runtime-lora\`, and report each instance's answer.

Usage:
  studio-serve adapter load <name> <path> [--port P]
  studio-serve adapter unload <name> [--port P]

  --port P    the port the launch serves on (its HAProxy; default 8000)

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
  run: runAdapter,
};
