import { escapeForTerminal, hasTerminalControl } from "@finetune-studio/internal";
import { readAdapterSource } from "../instance/adapter-paths.js";
import {
  type CommandArgs,
  parseCommand,
  positional,
  synopsesOf,
  usageLines,
} from "../shared/command-args.js";
import { LAUNCH_PORT_FLAG } from "../shared/common-flags.js";
import { ExitCode } from "../shared/exit-codes.js";
import { flagHelp, parseFlags } from "../shared/flags.js";
import { type CliIo, UsageError } from "../shared/io.js";
import { talkToLaunch } from "../shared/launch-control.js";
import { quoted } from "../shared/values.js";
import type { CliCommand } from "./command-type.js";

const FLAGS = [LAUNCH_PORT_FLAG];

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const NAME_RULE =
  "<name>: must be 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit";
const PATH_RULE = "<path>: load needs the adapter's path (a directory or a Hugging Face repo)";
const NAME_ARG = positional("<name>", 'the adapter\'s name, which clients send in "model"', false, NAME_RULE);
const PATH_ARG = positional("<path>", "the adapter: a directory or a Hugging Face repo", false, PATH_RULE);

/** `adapter load <name> <path>` and `adapter unload <name>`: the action is the first word. */
const FORMS = {
  load: {
    name: "adapter",
    positionals: [positional("load", "load an adapter"), NAME_ARG, PATH_ARG],
    flags: FLAGS,
  },
  unload: {
    name: "adapter",
    positionals: [positional("unload", "unload an adapter"), NAME_ARG],
    flags: FLAGS,
  },
} satisfies Record<string, CommandArgs>;

async function runAdapter(args: readonly string[], io: CliIo): Promise<number> {
  // The first word says which form the rest is read by.
  const first = parseFlags(args, FLAGS);
  if (first.help) {
    io.out(HELP);
    return ExitCode.Ok;
  }
  const action = first.positionals[0];
  if (action !== "load" && action !== "unload") {
    throw new UsageError(`say load or unload (given ${quoted(action ?? "")})`);
  }
  const parsed = parseCommand(args, FORMS[action]);
  const [, name = "", path = ""] = parsed.positionals;
  if (!NAME.test(name)) throw new UsageError(NAME_RULE);
  const port = parsed.get(LAUNCH_PORT_FLAG);
  if (action === "unload") return await talkToLaunch(port, { op: "adapter", action, name }, io);
  if (path === "" || hasTerminalControl(path) || path.length > 4096) throw new UsageError(PATH_RULE);
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

${usageLines(FORMS.load, FORMS.unload)}

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
  synopsis: synopsesOf([FORMS.load, FORMS.unload], "change runtime LoRA adapters on every instance"),
  help: HELP,
  flags: FLAGS,
  run: runAdapter,
};
