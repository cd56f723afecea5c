import { jsonForTerminal } from "@finetune-studio/internal";
import { planServe } from "@finetune-studio/serve-kit";
import { HubError } from "../plan/hub-reader.js";
import { planSettingsFrom, resolvePlanGpu } from "../plan/plan-input.js";
import { formatPlan } from "../plan/plan-table.js";
import { readPlanModel } from "../plan/read-model.js";
import { GPU_FLAGS, JSON_FLAG } from "../shared/common-flags.js";
import { ENGINE_FLAG_LIST, ENGINE_FLAGS } from "../shared/engine-flags.js";
import { ExitCode } from "../shared/exit-codes.js";
import { describedAs, flagHelp, giveOne, parseFlags, switchFlag, textFlag } from "../shared/flags.js";
import { wrapList } from "../shared/help.js";
import { type CliIo, UsageError } from "../shared/io.js";
import { messageOf } from "../shared/messages.js";
import { quoted } from "../shared/values.js";
import type { CliCommand } from "./command-type.js";

// plan's own flags; the GPU ones are read by plan/plan-input.ts, the engine ones through serve-kit's table.
const PLAN_FLAGS = [
  ...GPU_FLAGS,
  textFlag("gpus", {
    valueName: "N",
    field: "gpu.count",
    help: "GPUs available (default: nvidia-smi's count, else the tensor-parallel size)",
  }),
  textFlag("revision", { valueName: "R", help: "the hub branch, tag or commit (default main)" }),
  describedAs(JSON_FLAG, "the whole plan as JSON"),
  switchFlag(
    "enable-lora",
    "plan a LoRA serve (also on with a LoRA flag: --max-loras, --max-lora-rank, ...)",
    undefined,
    "enableLora",
  ),
];
const FLAGS = [...PLAN_FLAGS, ...ENGINE_FLAGS];

/** `studio-serve plan MODEL`: will it fit, before vLLM loads a byte. */
async function runPlan(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseFlags(args, FLAGS);
  if (parsed.help) {
    io.out(HELP);
    return ExitCode.Ok;
  }
  const values = parsed.raw;
  const [model, ...rest] = parsed.positionals;
  if (model === undefined) throw new UsageError("missing MODEL: a local directory or a hub repository");
  if (rest.length > 0) throw new UsageError(`unexpected argument ${quoted(rest[0])}`);
  giveOne(parsed, GPU_FLAGS);
  const gpu = await resolvePlanGpu(values, io.env, "plan");
  if (!gpu)
    throw new UsageError(
      "no GPU found: nvidia-smi is not here; give --gpu NAME or --gpu-memory 80GiB",
      "plan",
    );
  const settings = planSettingsFrom(values, "plan");
  let files: Awaited<ReturnType<typeof readPlanModel>>;
  try {
    files = await readPlanModel(model, io.env, values.revision as string | undefined);
  } catch (error) {
    if (error instanceof HubError || error instanceof Error) {
      io.err(`studio-serve plan: ${messageOf(error)}\n`);
      return ExitCode.Failure;
    }
    throw error;
  }
  const plan = planServe(files, gpu, settings);
  io.out(parsed.get(JSON_FLAG) ? `${jsonForTerminal({ model, ...plan })}\n` : formatPlan(plan, model));
  return plan.verdict.kind === "fits" || plan.verdict.kind === "unknown" ? ExitCode.Ok : ExitCode.Failure;
}

const HELP = `studio-serve plan: will the served model fit on the GPU? Computed from the model's own files before vLLM
loads a byte, following vLLM's memory profiling and KV-cache layout.

Usage:
  studio-serve plan MODEL [--gpu NAME | --gpu-memory 80GiB] [--gpus N] [vLLM flags] [--json]

MODEL is a local directory with config.json, or a hub repository (owner/name): config.json and
model.safetensors.index.json are read from \${HF_ENDPOINT:-https://huggingface.co}, with HF_TOKEN or the hub
CLI's saved token for gated repositories (never printed).

Options:
${flagHelp(PLAN_FLAGS)}
  vLLM's engine options, as for studio-serve command (see its --help):
${wrapList(ENGINE_FLAG_LIST)}

Without --gpu or --gpu-memory it asks nvidia-smi. Exit code 0 when it fits, 1 when it does not (the verdict
names the flag that would make it fit).

Example:
  studio-serve plan meta-llama/Llama-3.1-8B-Instruct --gpu L4
`;

export const plan: CliCommand = {
  name: "plan",
  synopsis: [["plan MODEL [--gpu NAME] [vLLM flags]", "will the model fit on the GPU? (before vLLM starts)"]],
  help: HELP,
  flags: FLAGS,
  run: runPlan,
};
