import { jsonForTerminal } from "@finetune-studio/internal";
import { checkGpusForSettings, planSettingsFrom, resolvePlanGpu } from "../plan/plan-input.js";
import { formatPlan } from "../plan/plan-table.js";
import { ModelReadError, planModel } from "../plan/read-model.js";
import {
  type CommandArgs,
  parseCommand,
  positional,
  synopsisOf,
  usageLines,
} from "../shared/command-args.js";
import { ENABLE_LORA_FLAG, GPU_COUNT_FLAG, GPU_FLAGS, JSON_FLAG } from "../shared/common-flags.js";
import { ENGINE_FLAG_LIST, ENGINE_FLAGS } from "../shared/engine-flags.js";
import { ExitCode, exitCodeHelp } from "../shared/exit-codes.js";
import { describedAs, flagHelp, textFlag } from "../shared/flags.js";
import { wrapList } from "../shared/help.js";
import { type CliIo, UsageError } from "../shared/io.js";
import { messageOf } from "../shared/messages.js";
import type { CliCommand } from "./command-type.js";

const REVISION_FLAG = textFlag("revision", {
  valueName: "R",
  help: "the hub branch, tag or commit (default main)",
});

// plan's own flags; the GPU ones are read by plan/plan-input.ts, the engine ones through serve-kit's table.
const PLAN_FLAGS = [
  ...GPU_FLAGS,
  GPU_COUNT_FLAG,
  REVISION_FLAG,
  describedAs(JSON_FLAG, "the whole plan as JSON"),
  ENABLE_LORA_FLAG,
];
const FLAGS = [...PLAN_FLAGS, ...ENGINE_FLAGS];
const MODEL_ARG = positional("MODEL", "a local directory or a hub repository");

/** `studio-serve plan MODEL`: the model, the GPU (by one of two flags) and vLLM's flags. */
const PLAN_ARGS: CommandArgs = {
  name: "plan",
  positionals: [MODEL_ARG],
  flags: FLAGS,
  oneOf: [{ flags: GPU_FLAGS }],
};

/** `studio-serve plan MODEL`: will it fit, before vLLM loads a byte. */
async function runPlan(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseCommand(args, PLAN_ARGS);
  if (parsed.help) {
    io.out(HELP);
    return ExitCode.Ok;
  }
  const model = parsed.positionals[0] as string;
  const gpu = await resolvePlanGpu(parsed, io.env, "plan");
  if (!gpu)
    throw new UsageError(
      "no GPU found: nvidia-smi is not here; give --gpu NAME or --gpu-memory 80GiB",
      "plan",
    );
  const settings = planSettingsFrom(parsed, "plan");
  checkGpusForSettings(gpu, settings, "plan");
  const planned = await planModel(model, gpu, settings, io.env, parsed.get(REVISION_FLAG));
  if (planned instanceof ModelReadError) {
    io.err(`studio-serve plan: ${messageOf(planned)}\n`);
    return ExitCode.ModelUnreadable;
  }
  io.out(parsed.get(JSON_FLAG) ? `${jsonForTerminal({ model, ...planned })}\n` : formatPlan(planned, model));
  return planned.verdict.kind === "fits" || planned.verdict.kind === "unknown"
    ? ExitCode.Ok
    : ExitCode.DoesNotFit;
}

const HELP = `studio-serve plan: will the served model fit on the GPU? Computed from the model's own files before vLLM
loads a byte, following vLLM's memory profiling and KV-cache layout.

${usageLines(PLAN_ARGS)}

MODEL is a local directory with config.json, or a hub repository (owner/name): config.json and
model.safetensors.index.json are read from the hub's cache (HF_HUB_CACHE, else $HF_HOME/hub), else from
\${HF_ENDPOINT:-https://huggingface.co}, with HF_TOKEN or the hub CLI's saved token for gated repositories
(never printed). With HF_HUB_OFFLINE=1 only the cache is read, as vLLM does.

Options:
${flagHelp(PLAN_FLAGS)}
  vLLM's engine options, as for studio-serve command (see its --help):
${wrapList(ENGINE_FLAG_LIST)}

Without --gpu or --gpu-memory it asks nvidia-smi. A MODEL that starts with ., / or ~, or whose first path
component exists here, is a local path: read here or refused, never asked of the hub. The verdict follows
vLLM's start-up checks too (tensor parallelism splitting the attention heads, the KV heads and the MLP
evenly, --max-model-len within the model's unless VLLM_ALLOW_LONG_MAX_MODEL_LEN is set, --quantization
matching the checkpoint and running on the GPU (AWQ from compute capability 7.5, FP8 from 8.0), bfloat16 from
8.0) and names the flags that would make it fit. --max-model-len takes vLLM's suffixes: 8k = 8000, 8K = 8192.

${exitCodeHelp("plan")}

Example:
  studio-serve plan meta-llama/Llama-3.1-8B-Instruct --gpu L4
`;

export const plan: CliCommand = {
  name: "plan",
  synopsis: [synopsisOf(PLAN_ARGS, "will the model fit on the GPU? (before vLLM starts)")],
  help: HELP,
  flags: FLAGS,
  run: runPlan,
};
