import { escapeForTerminal, jsonForTerminal } from "@finetune-studio/internal";
import { checkGpusForSettings, planSettingsFrom, resolvePlanGpu } from "../plan/plan-input.js";
import { formatPlan } from "../plan/plan-table.js";
import { ModelReadError, planModel } from "../plan/read-model.js";
import { ExitCode } from "../shared/exit-codes.js";
import { ENGINE_FLAG_LIST, wrapList } from "../shared/help.js";
import { type CliIo, UsageError } from "../shared/io.js";
import { ENGINE_FLAGS, parseCommandLine } from "../shared/serve-args.js";
import type { CliCommand } from "./command-type.js";

export const PLAN_OPTIONS = {
  gpu: { type: "string" },
  "gpu-memory": { type: "string" },
  gpus: { type: "string" },
  revision: { type: "string" },
  json: { type: "boolean" },
  "enable-lora": { type: "boolean" },
  help: { type: "boolean", short: "h" },
  ...ENGINE_FLAGS,
} as const;

/** `studio-serve plan MODEL`: will it fit, before vLLM loads a byte. */
async function runPlan(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandLine("plan", args, PLAN_OPTIONS);
  if (values.help === true) {
    io.out(HELP);
    return ExitCode.Ok;
  }
  const [model, ...rest] = positionals;
  if (model === undefined)
    throw new UsageError("missing MODEL: a local directory or a hub repository", "plan");
  if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}"`, "plan");
  if (values.gpu !== undefined && values["gpu-memory"] !== undefined)
    throw new UsageError("--gpu and --gpu-memory: give one", "plan");
  const gpu = await resolvePlanGpu(values, io.env, "plan");
  if (!gpu)
    throw new UsageError(
      "no GPU found: nvidia-smi is not here; give --gpu NAME or --gpu-memory 80GiB",
      "plan",
    );
  const settings = planSettingsFrom(values, "plan");
  checkGpusForSettings(gpu, settings, "plan");
  const planned = await planModel(model, gpu, settings, io.env, values.revision as string | undefined);
  if (planned instanceof ModelReadError) {
    io.err(`studio-serve plan: ${escapeForTerminal(planned.message)}\n`);
    return ExitCode.ModelUnreadable;
  }
  io.out(values.json === true ? `${jsonForTerminal({ model, ...planned })}\n` : formatPlan(planned, model));
  return planned.verdict.kind === "fits" || planned.verdict.kind === "unknown"
    ? ExitCode.Ok
    : ExitCode.DoesNotFit;
}

const HELP = `studio-serve plan: will the served model fit on the GPU? Computed from the model's own files before vLLM
loads a byte, following vLLM's memory profiling and KV-cache layout.

Usage:
  studio-serve plan MODEL [--gpu NAME | --gpu-memory 80GiB] [--gpus N] [vLLM flags] [--json]

MODEL is a local directory with config.json, or a hub repository (owner/name): config.json and
model.safetensors.index.json are read from \${HF_ENDPOINT:-https://huggingface.co}, with HF_TOKEN or the hub
CLI's saved token for gated repositories (never printed).

Options:
  --gpu NAME               a GPU from the table: H100, H100-NVL, H200, A100-80GB, A100-40GB, L40S, L4, A10G, T4, ...
  --gpu-memory SIZE        or its memory: 80GiB, 24GB
  --gpus N                 GPUs available (default: nvidia-smi's count, else the tensor-parallel size)
  --revision R             the hub branch, tag or commit (default main)
  --json                   the whole plan as JSON
  --enable-lora            plan a LoRA serve (also on with a LoRA flag: --max-loras, --max-lora-rank, ...)
  vLLM's engine options, as for studio-serve command (see its --help):
${wrapList(ENGINE_FLAG_LIST)}

Without --gpu or --gpu-memory it asks nvidia-smi. A MODEL that starts with ., / or ~, or whose first path
component exists here, is a local path: read here or refused, never asked of the hub. The verdict follows
vLLM's start-up checks too (tensor parallelism dividing the attention heads, --max-model-len within the
model's unless VLLM_ALLOW_LONG_MAX_MODEL_LEN is set, --quantization matching the checkpoint, bfloat16 on a
GPU of compute capability 8.0 or more) and names the flags that would make it fit.

Exit codes:
  0   it fits (or the weights fit and the plan cannot size this architecture's KV cache: verdict "unknown")
  1   it does not fit, or vLLM would refuse these settings
  2   bad arguments
  4   the model's files could not be read (a local path that is not a model, the hub unreachable or refusing)

Example:
  studio-serve plan meta-llama/Llama-3.1-8B-Instruct --gpu L4
`;

export const plan: CliCommand = {
  name: "plan",
  synopsis: [["plan MODEL [--gpu NAME] [vLLM flags]", "will the model fit on the GPU? (before vLLM starts)"]],
  help: HELP,
  run: runPlan,
};
