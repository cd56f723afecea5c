import { StudioAuthError, StudioTimeoutError } from "@finetune-studio/client";
import { exitCodeOf } from "@finetune-studio/internal";
import type { LaunchEvent } from "../instance/events.js";
import type { LaunchSettings } from "../instance/launch-settings.js";
import { type Prepared, preflight } from "../instance/preflight.js";
import { describeExit, formatDuration, LAST_LINES_SHOWN, reportLastLines } from "../instance/report.js";
import { smokeCompletion } from "../instance/smoke.js";
import type { RunningVllm } from "../instance/vllm-process.js";
import { ExitCode } from "../shared/exit-codes.js";
import type { CliIo } from "../shared/io.js";
import { messageOf } from "../shared/messages.js";

const PROGRESS_EVERY_MS = 15_000;

/** What starting an instance needs to know of it. */
export interface StartSetup {
  readonly plan: LaunchSettings;
  readonly io: CliIo;
  /** How messages name it: "" for a launch of one, "instance 0 (port 8001): " in a fleet. */
  readonly label: string;
}

/** Why an instance is not serving: launch's exit code, and the event that records it (none if vLLM never ran). */
export interface Ending {
  code: number;
  event: (LaunchEvent & { event: "stopped" | "crashed" }) | undefined;
}

/** How a start ended: the seconds it took to serve, how it failed, or undefined when a stop cut it short. */
export type StartOutcome = number | Ending | undefined;

/** A step that failed: its ending, or "stop" when launch is stopping (whoever stopped it records it). */
type Failed = Ending | "stop";

/**
 * Preflight (vllm on PATH, its port free, its log), vLLM spawned by `spawn` in its own process group,
 * /health and /v1/models listing the names within --timeout, then a one-token completion straight to its
 * port. Resolves with the seconds it took, or how it ended: --timeout (124), an answer that is not vLLM's
 * (1), a failed smoke completion (3), or vLLM's own exit (its code and last lines); the caller records the
 * ending and stops what is left. A stop (`stop` aborted) ends the wait with no ending.
 */
export async function untilServing(
  setup: StartSetup,
  stop: AbortSignal,
  spawn: (prepared: Prepared) => RunningVllm,
): Promise<StartOutcome> {
  if (stop.aborted) return undefined;
  const started = Date.now();
  const prepared = await preflight(setup.plan, setup.io);
  if (typeof prepared === "number") return { code: prepared, event: undefined };
  // A stop during preflight: nothing is started that the stop would not see.
  if (stop.aborted) return undefined;
  const vllm = spawn(prepared);
  // Ends every wait when launch stops or vLLM's main process exits.
  const gone = new AbortController();
  const onStop = () => gone.abort();
  stop.addEventListener("abort", onStop, { once: true });
  void vllm.exited.then(() => gone.abort());
  const { baseURL: url, model } = setup.plan.built.client;
  try {
    const failed =
      (await untilLoaded(setup, vllm, started, stop, gone.signal)) ??
      (await untilAnswers(setup, vllm, stop, gone.signal));
    if (failed !== undefined) return failed === "stop" ? undefined : failed;
    const seconds = (Date.now() - started) / 1000;
    prepared.events.write({ event: "ready", url, model, seconds });
    return seconds;
  } finally {
    stop.removeEventListener("abort", onStop);
  }
}

/** vLLM refuses connections until the weights are loaded: /health and /v1/models within --timeout. */
async function untilLoaded(
  { plan, io, label }: StartSetup,
  vllm: RunningVllm,
  started: number,
  stop: AbortSignal,
  gone: AbortSignal,
): Promise<Failed | undefined> {
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
    await plan.chat.waitUntilReady({ model, timeoutMs: plan.timeoutSeconds * 1000, signal: gone });
    return undefined;
  } catch (error) {
    if (stop.aborted || gone.aborted) return await cutShort({ io, label, plan }, vllm, stop);
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
}

/** "Ready" means it answers: a one-token completion straight to its port. */
async function untilAnswers(
  setup: StartSetup,
  vllm: RunningVllm,
  stop: AbortSignal,
  gone: AbortSignal,
): Promise<Failed | undefined> {
  const { plan, io, label } = setup;
  try {
    await smokeCompletion(plan.chat, plan.built.client.model, gone);
    return undefined;
  } catch (error) {
    if (stop.aborted || gone.aborted) return await cutShort(setup, vllm, stop);
    const hint =
      error instanceof StudioAuthError ? " (the server wants another API key: check --api-key-env)" : "";
    io.err(
      `studio-serve: ${label}the one-token smoke completion failed: ${messageOf(error)}${hint}; stopping vLLM\n`,
    );
    return stopped(ExitCode.SmokeFailed, "the smoke completion failed");
  }
}

/** A wait cut short: by launch stopping, or by vLLM's exit before it served. */
function cutShort(setup: StartSetup, vllm: RunningVllm, stop: AbortSignal): Promise<Failed> {
  return stop.aborted ? Promise.resolve("stop") : exitedBeforeReady(setup, vllm);
}

function stopped(code: number, reason: string): Ending {
  return { code, event: { event: "stopped", reason, exitCode: code } };
}

/** vLLM's main process exited before it served: say how, with its last lines. */
async function exitedBeforeReady({ io, label }: StartSetup, vllm: RunningVllm): Promise<Ending> {
  const exit = await vllm.exited;
  if (exit.error !== undefined) {
    io.err(`studio-serve: ${label}could not start vllm: ${messageOf(exit.error)}\n`);
    return { code: ExitCode.Failure, event: crashedEvent(vllm.recent.lines(), ExitCode.Failure, null) };
  }
  const code = exitCodeOf(exit);
  io.err(`studio-serve: ${label}vLLM exited (${describeExit(exit)}) before it was ready.\n`);
  reportLastLines(vllm.recent.lines(), io);
  // A clean exit before serving is still a failure to serve.
  const failed = code === 0 ? ExitCode.Failure : code;
  return { code: failed, event: crashedEvent(vllm.recent.lines(), failed, exit.signal) };
}

/** The crashed event, with vLLM's last lines. */
export function crashedEvent(
  lines: readonly string[],
  code: number,
  signal: string | null,
): LaunchEvent & { event: "crashed" } {
  return { event: "crashed", exitCode: code, signal, lastLines: lines.slice(-LAST_LINES_SHOWN) };
}
