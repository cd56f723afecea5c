import { escapeForTerminal } from "@finetune-studio/internal";
import { planServe, ServeConfigError } from "@finetune-studio/serve-kit";
import type { CliIo } from "../shared/io.js";
import { errorText } from "../shared/messages.js";
import { cliField, type ParsedServeArgs, STRICT_FLAG, servedModelOf } from "../shared/serve-args.js";
import { isLocalModel, readLocalModel } from "./local-reader.js";
import { type GpuSource, gpuAskedOnce, planSettingsFrom } from "./plan-input.js";

/**
 * Before vLLM starts: when the model is a local directory and a GPU is known (--gpu, else nvidia-smi), plans
 * the serve and warns on stderr when it will not fit, naming the flag that would make it fit. Returns false
 * when `--strict` is set and it will not fit (the caller stops); true otherwise, and when it cannot tell.
 */
export async function checkServeFits(
  parsed: ParsedServeArgs,
  io: CliIo,
  helpFor: string,
  planGpu: GpuSource = gpuAskedOnce(parsed, io.env, helpFor),
): Promise<boolean> {
  const model = servedModelOf(parsed);
  if (!(await isLocalModel(model))) return true;
  const gpu = await planGpu();
  if (!gpu) return true;
  let plan: ReturnType<typeof planServe>;
  try {
    plan = planServe(
      await readLocalModel(model),
      gpu,
      planSettingsFrom(parsed, helpFor, parsed.kind === "lora"),
      io.env,
    );
  } catch (error) {
    // A model the plan cannot read is vLLM's to judge; say why the check was skipped.
    // In the flags' words: the plan names its settings by their field (tensorParallelSize: --tensor-parallel-size).
    const why =
      error instanceof ServeConfigError
        ? `${cliField(error.field, parsed.flags)}: ${error.rule} (given ${error.given})`
        : errorText(error);
    io.err(`studio-serve: fit check skipped: ${escapeForTerminal(why)}\n`);
    return true;
  }
  if (plan.verdict.kind === "fits" || plan.verdict.kind === "unknown") return true;
  const flags = plan.verdict.flags.length > 0 ? `; pass ${plan.verdict.flags.join(" ")}` : "";
  const strict = parsed.get(STRICT_FLAG);
  io.err(
    `studio-serve: ${strict ? "refusing" : "warning"}: ${model} on ${plan.gpu.name ?? "this GPU"}: ${plan.verdict.summary}${flags} (studio-serve plan ${model} for the figures)\n`,
  );
  return !strict;
}
