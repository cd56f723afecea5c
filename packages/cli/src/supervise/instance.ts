import { StudioAuthError, StudioTimeoutError } from "@finetune-studio/client";
import { type ChildExit, exitCodeOf } from "@finetune-studio/internal";
import type { LaunchEvent } from "../instance/events.js";
import { type LaunchSettings, readLaunchSettings } from "../instance/launch-settings.js";
import { type Prepared, preflight } from "../instance/preflight.js";
import { describeExit, formatDuration, LAST_LINES_SHOWN, reportLastLines } from "../instance/report.js";
import { smokeCompletion } from "../instance/smoke.js";
import { type RunningVllm, startVllm } from "../instance/vllm-process.js";
import { ExitCode } from "../shared/exit-codes.js";
import type { CliIo } from "../shared/io.js";
import { messageOf } from "../shared/messages.js";
import type { ParsedServeArgs } from "../shared/serve-args.js";

const PROGRESS_EVERY_MS = 15_000;

/** One vLLM instance of a launch: its GPU, where it listens, and its process now. */
export interface Instance {
  readonly index: number;
  /** Its GPU (CUDA_VISIBLE_DEVICES), or undefined for a launch of one, which takes the environment's. */
  readonly gpu: string | undefined;
  readonly plan: LaunchSettings;
  /** Its io: in a fleet, its lines prefixed with its name, CUDA_VISIBLE_DEVICES set; the runtime-LoRA switch. */
  readonly io: CliIo;
  /** How messages name it: "" for a launch of one, "instance 0 (port 8001): " in a fleet. */
  readonly label: string;
  vllm: RunningVllm | undefined;
  prepared: Prepared | undefined;
  /** Set while launch itself stops and starts it again: its exit is expected then. */
  restarting: boolean;
  /** Whether it takes requests now (false while it starts, restarts, or after it died). */
  serving: boolean;
  /** Its run's ending is in the event log already: stopping it records nothing more. */
  recorded: boolean;
}

/** Why an instance is not serving: launch's exit code, and the event that records it (none if vLLM never ran). */
export interface Ending {
  code: number;
  event: (LaunchEvent & { event: "stopped" | "crashed" }) | undefined;
}

/**
 * The instance of a launch of one: the plan as the user gave it (its port is the one clients call), in the
 * environment as it is. With `--runtime-lora`, `extraEnv` lets vLLM change adapters at run time.
 */
export function soleInstance(plan: LaunchSettings, extraEnv: NodeJS.ProcessEnv, io: CliIo): Instance {
  return newInstance(0, undefined, plan, { ...io, env: { ...io.env, ...extraEnv } }, "");
}

/** Instance i of a fleet: the same serving intent on 127.0.0.1 and port P+1+i, on one GPU. */
export function fleetInstance(
  parsed: ParsedServeArgs,
  index: number,
  gpu: string,
  port: number,
  extraEnv: NodeJS.ProcessEnv,
  io: CliIo,
): Instance {
  // The main plan already printed the warnings: the instances' are the same.
  const quiet: CliIo = { ...io, err: () => {} };
  const plan = readLaunchSettings(
    { ...parsed, options: { ...parsed.options, host: "127.0.0.1", port } },
    quiet,
  );
  const prefixed: CliIo = {
    ...io,
    env: { ...io.env, ...extraEnv, CUDA_VISIBLE_DEVICES: gpu },
    err: (text) => io.err(text.replace(/^\[vllm\] /gm, `[vllm-${index}] `)),
  };
  return newInstance(index, gpu, plan, prefixed, `instance ${index} (port ${port}): `);
}

function newInstance(
  index: number,
  gpu: string | undefined,
  plan: LaunchSettings,
  io: CliIo,
  label: string,
): Instance {
  const state = { vllm: undefined, prepared: undefined, restarting: false, serving: false, recorded: false };
  return { index, gpu, plan, io, label, ...state };
}

/**
 * Starts the instance and waits until it serves: preflight (vllm on PATH, its port free, its log), vLLM in its
 * own process group, /health and /v1/models listing the names within --timeout, then a one-token completion
 * straight to its port. Resolves with the seconds it took, or how it ended: --timeout (124), an answer that is
 * not vLLM's (1), a failed smoke completion (3), or vLLM's own exit (its code and last lines), each written
 * to the event log; the caller stops what is left. A stop (`stop` aborted) ends the wait with no ending:
 * whoever stopped it records it.
 * `onSpawned` is called once vLLM's process group exists, to put it on record.
 */
export async function startInstance(
  instance: Instance,
  stop: AbortSignal,
  onSpawned: () => void,
): Promise<number | Ending | undefined> {
  instance.recorded = false;
  const result = await untilServing(instance, stop, onSpawned);
  if (typeof result === "object" && result.event !== undefined) {
    instance.prepared?.events.write(result.event);
    instance.recorded = true;
  }
  return result;
}

async function untilServing(
  instance: Instance,
  stop: AbortSignal,
  onSpawned: () => void,
): Promise<number | Ending | undefined> {
  const { plan, io, label } = instance;
  if (stop.aborted) return undefined;
  const started = Date.now();
  const prepared = await preflight(plan, io);
  if (typeof prepared === "number") return { code: prepared, event: undefined };
  instance.prepared = prepared;
  const vllm = startVllm(plan, prepared, io);
  instance.vllm = vllm;
  onSpawned();
  const gone = new AbortController();
  const onStop = () => gone.abort();
  stop.addEventListener("abort", onStop, { once: true });
  void vllm.exited.then(() => gone.abort());
  const { baseURL: url, model } = plan.built.client;
  io.err(
    `studio-serve: ${label}waiting for ${url} to serve "${model}". vLLM refuses connections until the weights are loaded, which can take minutes.\n`,
  );
  const progress = setInterval(() => {
    io.err(
      `studio-serve: ${label}still loading (${formatDuration(Date.now() - started)}; vLLM is running)\n`,
    );
  }, PROGRESS_EVERY_MS);
  try {
    try {
      await plan.chat.waitUntilReady({ model, timeoutMs: plan.timeoutSeconds * 1000, signal: gone.signal });
    } catch (error) {
      if (stop.aborted) return undefined;
      if (gone.signal.aborted) return await exitedBeforeReady(instance);
      if (error instanceof StudioTimeoutError) {
        io.err(
          `studio-serve: ${label}vLLM was not ready after ${plan.timeoutSeconds} s (${messageOf(error)}); stopping it. Large models can take longer: raise --timeout.\n`,
        );
        reportLastLines(vllm.recent.lines(), io);
        return stopped(ExitCode.Timeout, "not ready before --timeout");
      }
      io.err(
        `studio-serve: ${label}the server did not answer as vLLM should: ${messageOf(error)}; stopping it\n`,
      );
      return stopped(ExitCode.Failure, "the server answered wrongly");
    } finally {
      clearInterval(progress);
    }
    try {
      await smokeCompletion(plan.chat, model, gone.signal);
    } catch (error) {
      if (stop.aborted) return undefined;
      if (gone.signal.aborted) return await exitedBeforeReady(instance);
      const hint =
        error instanceof StudioAuthError ? " (the server wants another API key: check --api-key-env)" : "";
      io.err(
        `studio-serve: ${label}the one-token smoke completion failed: ${messageOf(error)}${hint}; stopping vLLM\n`,
      );
      return stopped(ExitCode.SmokeFailed, "the smoke completion failed");
    }
    const seconds = (Date.now() - started) / 1000;
    prepared.events.write({ event: "ready", url, model, seconds });
    return seconds;
  } finally {
    stop.removeEventListener("abort", onStop);
  }
}

function stopped(code: number, reason: string): Ending {
  return { code, event: { event: "stopped", reason, exitCode: code } };
}

/** vLLM's main process exited before it served: say how, with its last lines. */
async function exitedBeforeReady(instance: Instance): Promise<Ending> {
  const { io, label } = instance;
  const vllm = instance.vllm as RunningVllm;
  const exit = await vllm.exited;
  if (exit.error !== undefined) {
    io.err(`studio-serve: ${label}could not start vllm: ${messageOf(exit.error)}\n`);
    return crashed(vllm, ExitCode.Failure, null);
  }
  const code = exitCodeOf(exit);
  io.err(`studio-serve: ${label}vLLM exited (${describeExit(exit)}) before it was ready.\n`);
  reportLastLines(vllm.recent.lines(), io);
  // A clean exit before serving is still a failure to serve.
  return crashed(vllm, code === 0 ? ExitCode.Failure : code, exit.signal);
}

/** The crashed event, with vLLM's last lines. */
export function crashedEvent(
  vllm: RunningVllm,
  code: number,
  signal: string | null,
): LaunchEvent & { event: "crashed" } {
  return {
    event: "crashed",
    exitCode: code,
    signal,
    lastLines: vllm.recent.lines().slice(-LAST_LINES_SHOWN),
  };
}

function crashed(vllm: RunningVllm, code: number, signal: string | null): Ending {
  return { code, event: crashedEvent(vllm, code, signal) };
}

/**
 * Stops the instance's whole process group (`signal`, the grace, KILL) and records it: a `stopped` event with
 * the reason and vLLM's exit code (an instance that had already crashed has its `crashed` event and is not
 * recorded twice). Resolves with how vLLM's main process ended, or undefined when it never ran.
 */
export async function stopInstance(
  instance: Instance,
  reason: string,
  signal: NodeJS.Signals = "SIGTERM",
): Promise<ChildExit | undefined> {
  const vllm = instance.vllm;
  if (vllm === undefined) return undefined;
  const crashedBefore = vllm.group.child.exitCode !== null || vllm.group.child.signalCode !== null;
  await vllm.shutDown(signal);
  const exit = await vllm.exited;
  const alreadyRecorded = instance.recorded || (crashedBefore && !instance.restarting);
  if (!alreadyRecorded)
    instance.prepared?.events.write({ event: "stopped", reason, exitCode: exitCodeOf(exit) });
  instance.recorded = true;
  return exit;
}
