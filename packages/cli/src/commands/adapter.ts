import { escapeForTerminal, hasTerminalControl } from "@finetune-studio/internal";
import { readAdapterSource } from "../instance/adapter-paths.js";
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
  return await talkToLaunch(port, { op: "adapter", action, name, path: pathForVllm(path, io) }, io);
}

/**
 * The path as vLLM must get it: vLLM reads a relative path in its own working directory (the launch's), not
 * the caller's, so a local adapter goes as its absolute, real path; a hub id as written. A local path that
 * vLLM could not load is refused here, before anything is sent.
 */
function pathForVllm(path: string, io: CliIo): string {
  const source = readAdapterSource(path, io.env, process.cwd());
  if (source.kind === "refused") {
    throw new UsageError(`<path>: ${source.problem} (given ${quoted(path)}); nothing was sent`);
  }
  if (source.kind === "hub") return path;
  if (source.path !== path) {
    io.err(
      `studio-serve: adapter: ${escapeForTerminal(path)} is ${escapeForTerminal(source.path)} (vLLM reads a relative path in its own working directory: it gets this one)\n`,
    );
  }
  return source.path;
}

const HELP = `studio-serve adapter: load or unload a LoRA adapter on every vLLM instance of a running
\`launch lora ... --runtime-lora\` (one instance or --instances N), and report each instance's answer.
vLLM loads adapters only with --enable-lora, which launch lora turns on and launch full leaves off.

Usage:
  studio-serve adapter load <name> <path> [--port P]
  studio-serve adapter unload <name> [--port P]

${flagHelp(FLAGS)}

<path> is a directory (absolute, or relative to where you run this: it is sent to vLLM as its
absolute path, since vLLM reads a relative one in its own working directory) or a Hugging Face repo
id. A directory must hold what vLLM loads (adapter_config.json with r, lora_alpha and target_modules,
and adapter_model.safetensors, .bin or .pt), and its rank r must be at most the launch's
--max-lora-rank (vLLM's default 16): anything else is refused before it is sent.

The launch remembers the adapters loaded this way, and a reload loads them again. The launch needs
--runtime-lora (VLLM_ALLOW_RUNTIME_LORA_UPDATING=True): anyone who can call vLLM can then load
adapters from paths on that machine, so keep it to trusted networks. Exit code 0 when every instance
agreed, 1 otherwise (or when the launch refused the adapter), 2 for a path refused here.
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
