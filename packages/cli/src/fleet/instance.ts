import { exitCodeOf } from "@finetune-studio/internal";
import type { CliIo } from "../io.js";
import { type LaunchPlan, planLaunch } from "../launch/plan.js";
import { type Prepared, preflight } from "../launch/preflight.js";
import { messageOf } from "../launch/report.js";
import { smokeCompletion } from "../launch/smoke.js";
import { type RunningVllm, startVllm } from "../launch/vllm-process.js";
import type { ParsedServeArgs } from "../serve-args.js";

/** One vLLM instance of a multi-instance launch: its GPU, its port on 127.0.0.1, and its process now. */
export interface Instance {
  readonly index: number;
  readonly gpu: string;
  readonly plan: LaunchPlan;
  /** Its io: its lines prefixed with its name, CUDA_VISIBLE_DEVICES and the runtime-LoRA switch set. */
  readonly io: CliIo;
  vllm: RunningVllm | undefined;
  prepared: Prepared | undefined;
  /** Set while launch itself stops and starts it again: its exit is expected then. */
  restarting: boolean;
  /** Whether the front door sends it requests now (false while it starts, restarts, or after it died). */
  serving: boolean;
}

/** Instance i: the same serving intent on 127.0.0.1 and port P+1+i, on one GPU. */
export function planInstance(
  parsed: ParsedServeArgs,
  index: number,
  gpu: string,
  port: number,
  extraEnv: NodeJS.ProcessEnv,
  io: CliIo,
): Instance {
  // The main plan already printed the warnings: the instances' are the same.
  const quiet: CliIo = { ...io, err: () => {} };
  const plan = planLaunch({ ...parsed, options: { ...parsed.options, host: "127.0.0.1", port } }, quiet);
  const env = { ...io.env, ...extraEnv, CUDA_VISIBLE_DEVICES: gpu };
  const prefixed: CliIo = {
    ...io,
    env,
    err: (text) => io.err(text.replace(/^\[vllm\] /gm, `[vllm-${index}] `)),
  };
  return {
    index,
    gpu,
    plan,
    io: prefixed,
    vllm: undefined,
    prepared: undefined,
    restarting: false,
    serving: false,
  };
}

/**
 * Starts the instance (preflight: vllm on PATH, its port free, its log) and waits until it serves: /health,
 * /v1/models listing the names, and a one-token completion straight to its port. Refusals while it loads
 * are expected; its exit, a stop or --timeout is a failure (the reason is returned; the caller stops it).
 * `onSpawned` is called once vLLM's process group exists, to put it on record.
 */
export async function startInstance(
  instance: Instance,
  stop: AbortSignal,
  onSpawned: () => void,
): Promise<string | undefined> {
  const { plan } = instance;
  // A stop that came while this was called starts nothing.
  if (stop.aborted) return "launch is stopping";
  const started = Date.now();
  const prepared = await preflight(plan, instance.io);
  if (typeof prepared === "number") return "its preflight failed";
  instance.prepared = prepared;
  const vllm = startVllm(plan, prepared, instance.io);
  instance.vllm = vllm;
  onSpawned();
  const gone = new AbortController();
  const onStop = () => gone.abort();
  stop.addEventListener("abort", onStop, { once: true });
  void vllm.exited.then(() => gone.abort());
  try {
    await plan.chat.waitUntilReady({
      model: plan.built.client.model,
      timeoutMs: plan.timeoutSeconds * 1000,
      signal: gone.signal,
    });
    await smokeCompletion(plan.chat, plan.built.client.model, gone.signal);
    const { baseURL: url, model } = plan.built.client;
    prepared.events.write({ event: "ready", url, model, seconds: (Date.now() - started) / 1000 });
    return undefined;
  } catch (error) {
    if (stop.aborted) return "launch is stopping";
    if (gone.signal.aborted) return "it exited before it was ready";
    return messageOf(error);
  } finally {
    stop.removeEventListener("abort", onStop);
  }
}

/**
 * Stops the instance's whole process group and records it, in the same words a single launch uses: a
 * `stopped` event with the reason and vLLM's exit code (an instance that had already crashed has its
 * `crashed` event and is not recorded twice).
 */
export async function stopInstance(instance: Instance, reason: string): Promise<void> {
  const vllm = instance.vllm;
  if (vllm === undefined) return;
  const crashedBefore = vllm.group.child.exitCode !== null || vllm.group.child.signalCode !== null;
  await vllm.shutDown();
  if (crashedBefore && !instance.restarting) return;
  const exitCode = exitCodeOf(await vllm.exited);
  instance.prepared?.events.write({ event: "stopped", reason, exitCode });
}
