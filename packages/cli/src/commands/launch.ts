import { StudioAuthError, StudioTimeoutError } from "@finetune-studio/client";
import { exitCodeOf, isLoopbackHost } from "@finetune-studio/internal";
import { clientSnippet } from "../client-snippet.js";
import { ExitCode } from "../exit-codes.js";
import { runFleet } from "../fleet/fleet.js";
import { parseLayout } from "../fleet/layout.js";
import { SERVE_FLAGS } from "../help.js";
import { type CliIo, UsageError } from "../io.js";
import type { LaunchEvent } from "../launch/events.js";
import { type LaunchPlan, planLaunch } from "../launch/plan.js";
import { type Prepared, preflight } from "../launch/preflight.js";
import {
  describeExit,
  formatDuration,
  LAST_LINES_SHOWN,
  messageOf,
  reportLastLines,
} from "../launch/report.js";
import { onStopSignals } from "../launch/signals.js";
import { smokeCompletion } from "../launch/smoke.js";
import { type RunningVllm, startVllm } from "../launch/vllm-process.js";
import { checkServeFits } from "../plan/fit-check.js";
import { LAUNCH_OPTIONS, parseServeArgs } from "../serve-args.js";
import type { CliCommand } from "./command-type.js";

const PROGRESS_EVERY_MS = 15_000;

/** How the run ended: launch's exit code and the event that records it. */
type Ending = { code: number; event: LaunchEvent & { event: "stopped" | "crashed" } };

/** What the steps share while vLLM runs. */
interface Run {
  plan: LaunchPlan;
  prepared: Prepared;
  vllm: RunningVllm;
  io: CliIo;
  /** Aborted when vLLM's main process exits or a stop signal arrives: ends any wait. */
  stop: AbortController;
  /** The first stop signal, once one arrived. */
  signalled: NodeJS.Signals | undefined;
}

/**
 * `studio-serve launch`, step by step: (1) the key and every check, (2) preflight, (3) spawn vLLM in its
 * own process group, (4) own the stop signals, (5) wait until it serves the model, (6) a one-token smoke
 * completion, (7) report how to call it and stay until vLLM exits. Whatever ends it (vLLM's own exit, a
 * signal, a timeout, an unexpected error), the whole process group is stopped before launch exits.
 */
async function runLaunch(args: readonly string[], given: CliIo): Promise<number> {
  const parsed = parseServeArgs("launch", args, LAUNCH_OPTIONS);
  if (parsed === "help") {
    given.out(HELP);
    return ExitCode.Ok;
  }
  const fitValues = { ...parsed.values, gpus: undefined }; // launch's --gpus lists GPU indexes, not a count
  if (!(await checkServeFits(parsed, given, `launch ${parsed.kind}`, fitValues))) return ExitCode.Failure;
  const layout = parseLayout(parsed);
  if (layout !== undefined) return await runFleet(parsed, layout, given);
  const runtimeLora = parsed.values["runtime-lora"] === true;
  const io = runtimeLora ? withRuntimeLora(given) : given;
  const plan = planLaunch(parsed, io);
  if (runtimeLora) {
    if (plan.key === undefined && !isLoopbackHost(plan.built.listen.host)) {
      throw new UsageError(
        `--runtime-lora: lets callers load adapters from paths; on ${plan.built.listen.host} (not loopback) it needs an API key (--api-key-env)`,
        `launch ${parsed.kind}`,
      );
    }
  }
  const prepared = await preflight(plan, io);
  if (typeof prepared === "number") return prepared;
  const vllm = startVllm(plan, prepared, io);
  const run: Run = { plan, prepared, vllm, io, stop: new AbortController(), signalled: undefined };
  void vllm.exited.then(() => run.stop.abort());
  const giveBackSignals = onStopSignals((signal, count) => onStopSignal(run, signal, count));
  try {
    const ending = await superviseUntilExit(run);
    prepared.events.write(ending.event);
    return ending.code;
  } finally {
    // Whatever ended the run, no process of vLLM's group is left: TERM, the grace, then KILL.
    await vllm.shutDown();
    giveBackSignals();
  }
}

function withRuntimeLora(io: CliIo): CliIo {
  io.err(
    "studio-serve: --runtime-lora: vLLM lets anyone who can call it load adapters from paths on this machine; use it on trusted networks only\n",
  );
  return { ...io, env: { ...io.env, VLLM_ALLOW_RUNTIME_LORA_UPDATING: "True" } };
}

/** Step 4: the first INT, TERM, HUP or QUIT stops vLLM gracefully; a second one forces it at once. */
function onStopSignal(run: Run, signal: NodeJS.Signals, count: number): void {
  if (count === 1) {
    run.signalled = signal;
    run.io.err(
      `studio-serve: ${signal}: stopping vLLM (up to ${run.plan.stopGraceMs / 1000} s, then SIGKILL; again to force)\n`,
    );
    // vLLM shuts down gracefully on SIGINT (Ctrl-C) and SIGTERM; HUP and QUIT would kill it without cleanup.
    void run.vllm.shutDown(signal === "SIGINT" ? "SIGINT" : "SIGTERM");
  } else {
    run.io.err("studio-serve: forcing vLLM to stop (SIGKILL to its process group)\n");
    run.vllm.group.kill();
  }
  run.stop.abort();
}

/** Steps 5 to 7. */
async function superviseUntilExit(run: Run): Promise<Ending> {
  const { plan, io } = run;
  const { model, baseURL } = plan.built.client;
  const started = Date.now();
  io.err(
    `studio-serve: waiting for ${baseURL} to serve "${model}". vLLM refuses connections until the weights are loaded, which can take minutes.\n`,
  );
  const notReady = await waitUntilReady(run, started);
  if (notReady !== undefined) return notReady;
  const smokeFailed = await smokeStep(run);
  if (smokeFailed !== undefined) return smokeFailed;
  const seconds = (Date.now() - started) / 1000;
  io.out(
    `ready: ${baseURL} serves "${model}" (smoke completion answered in ${formatDuration(seconds * 1000)})\n`,
  );
  io.out(clientSnippet(plan.built.client, plan.key?.name));
  run.prepared.events.write({ event: "ready", url: baseURL, model, seconds });
  io.err("studio-serve: press Ctrl-C to stop vLLM\n");
  await run.vllm.exited;
  return ended(run, true);
}

/** Step 5: /health, then /v1/models listing the served name, within --timeout. */
async function waitUntilReady(run: Run, started: number): Promise<Ending | undefined> {
  const { plan, io } = run;
  const progress = setInterval(() => {
    io.err(`studio-serve: still loading (${formatDuration(Date.now() - started)}; vLLM is running)\n`);
  }, PROGRESS_EVERY_MS);
  try {
    await plan.chat.waitUntilReady({
      model: plan.built.client.model,
      timeoutMs: plan.timeoutSeconds * 1000,
      signal: run.stop.signal,
    });
    return undefined;
  } catch (error) {
    if (run.stop.signal.aborted) return await ended(run, false);
    if (error instanceof StudioTimeoutError) {
      io.err(
        `studio-serve: vLLM was not ready after ${plan.timeoutSeconds} s (${messageOf(error)}); stopping it. Large models can take longer: raise --timeout.\n`,
      );
      reportLastLines(run.vllm.recent.lines(), io);
      return stopped(ExitCode.Timeout, "not ready before --timeout");
    }
    io.err(`studio-serve: the server did not answer as vLLM should: ${messageOf(error)}; stopping it\n`);
    return stopped(ExitCode.Failure, "the server answered wrongly");
  } finally {
    clearInterval(progress);
  }
}

/** Step 6: a one-token completion, so "ready" means it answers. */
async function smokeStep(run: Run): Promise<Ending | undefined> {
  const { plan, io } = run;
  try {
    await smokeCompletion(plan.chat, plan.built.client.model, run.stop.signal);
    return undefined;
  } catch (error) {
    if (run.stop.signal.aborted) return await ended(run, false);
    const hint =
      error instanceof StudioAuthError ? " (the server wants another API key: check --api-key-env)" : "";
    io.err(
      `studio-serve: the one-token smoke completion failed: ${messageOf(error)}${hint}; stopping vLLM\n`,
    );
    return stopped(ExitCode.SmokeFailed, "the smoke completion failed");
  }
}

function stopped(code: number, reason: string): Ending {
  return { code, event: { event: "stopped", reason, exitCode: code } };
}

/** vLLM's main process exited (on its own, or after a stop signal): report it and pass its code on. */
async function ended(run: Run, wasReady: boolean): Promise<Ending> {
  const { io } = run;
  const exit = await run.vllm.exited;
  const code = exitCodeOf(exit);
  if (run.signalled !== undefined) {
    io.err(`studio-serve: vLLM stopped (${describeExit(exit, true)})\n`);
    return { code, event: { event: "stopped", reason: `signal ${run.signalled}`, exitCode: code } };
  }
  if (exit.error !== undefined) {
    io.err(`studio-serve: could not start vllm: ${messageOf(exit.error)}\n`);
    return crashed(run, ExitCode.Failure, null);
  }
  if (wasReady && code === 0) {
    io.err("studio-serve: vLLM exited (exit code 0)\n");
    return { code, event: { event: "stopped", reason: "vLLM exited", exitCode: code } };
  }
  io.err(`studio-serve: vLLM exited (${describeExit(exit)})${wasReady ? "" : " before it was ready"}.\n`);
  reportLastLines(run.vllm.recent.lines(), io);
  // A clean exit before serving is still a failure to serve.
  return crashed(run, code === 0 ? ExitCode.Failure : code, exit.signal);
}

function crashed(run: Run, code: number, signal: string | null): Ending {
  const lastLines = run.vllm.recent.lines().slice(-LAST_LINES_SHOWN);
  return { code, event: { event: "crashed", exitCode: code, signal, lastLines } };
}

const HELP = `studio-serve launch: start vLLM, wait until it serves the model, check it with a one-token
completion, then keep running until vLLM stops; the exit code is vLLM's.

Usage:
  studio-serve launch full <model> [options] [-- vllm options]
  studio-serve launch lora <base> --adapter name=path [--adapter ...] [options] [-- vllm options]

${SERVE_FLAGS}

Waiting and stopping:
  --timeout S               give up (and stop vLLM) when it is not ready after S seconds
                            (default 1800: downloading and loading weights can take long)
  --stop-timeout S          seconds vLLM gets to stop after SIGTERM (or Ctrl-C) before its whole
                            process group is killed (default 30)

Ctrl-C, SIGTERM, SIGHUP and SIGQUIT stop vLLM and its workers alike; a second one kills them at once.
Whenever vLLM's main process ends, launch stops what is left of its process group before it exits.

Logs:
  --log-dir DIR             also write vLLM's output to DIR/vllm-<port>.log, launch's events (started,
                            ready, stopped, crashed with the last lines) to DIR/events.jsonl as JSON
                            lines, and vLLM's process group id to DIR/vllm-<port>.pid while it runs

Several GPUs on one machine:
  --instances N             run N vLLM instances, one per GPU (CUDA_VISIBLE_DEVICES 0..N-1), on
                            127.0.0.1 ports P+1..P+N, with HAProxy (which must be on PATH) on --port P
                            in front: the least busy instance takes each request, streams flow, and
                            requests go straight from HAProxy to vLLM (never through launch)
  --gpus 0,1,...            the same, on these GPUs (indexes or UUIDs), one instance each
  --max-connections N       connections HAProxy holds at once, waiting or served (default: 4 x N x
                            --max-num-seqs, at least 4096, within the open-file limit); each instance
                            gets at most --max-num-seqs (default 1024) and HAProxy queues the rest
  --runtime-lora            let adapters be loaded and unloaded while vLLM runs
                            (VLLM_ALLOW_RUNTIME_LORA_UPDATING=True): \`studio-serve adapter\` does it on
                            every instance. Anyone who can call vLLM can then load adapters from paths
                            on this machine: trusted networks only; refused on a non-loopback --host
                            without --api-key-env
  With --instances, SIGHUP (or \`studio-serve reload --port P\`) restarts the instances one at a time
  (each drained in HAProxy first; vLLM reads the weights again) while the others answer: no request
  fails. Ctrl-C, SIGTERM, SIGQUIT or \`studio-serve stop --port P\` stop HAProxy and every instance. If
  launch itself is killed, HAProxy and the instances go on serving; the next launch on the port (or
  \`studio-serve stop\`) finds them, stops them all, and says so.

vllm must be on PATH (pip install vllm). Without --api-key-env, a VLLM_API_KEY already in the
environment is used, since vLLM would read it anyway.
`;

export const launch: CliCommand = {
  name: "launch",
  synopsis: [["launch full|lora ... (same arguments)", "start vLLM, wait until it answers"]],
  help: HELP,
  run: runLaunch,
};
