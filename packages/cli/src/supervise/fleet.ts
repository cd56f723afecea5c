import { rmSync } from "node:fs";
import type { Server as NetServer } from "node:net";
import {
  escapeForTerminal,
  exitCodeOf,
  isLoopbackHost,
  probePort,
  processStartTicks,
} from "@finetune-studio/internal";
import { clientSnippet } from "../instance/client-snippet.js";
import { readLaunchSettings } from "../instance/launch-settings.js";
import { describeExit, formatDuration } from "../instance/report.js";
import { smokeCompletion } from "../instance/smoke.js";
import type { GpuSource } from "../plan/plan-input.js";
import { ExitCode } from "../shared/exit-codes.js";
import { type CliIo, UsageError } from "../shared/io.js";
import { messageOf } from "../shared/messages.js";
import type { ParsedServeArgs } from "../shared/serve-args.js";
import { findExecutable } from "../shared/which.js";
import { changeAdapter } from "./adapters.js";
import { type ControlRequest, serveControl } from "./control.js";
import { frontDoorLimit, instanceBatch } from "./front-door-limit.js";
import { missingGpus } from "./gpus.js";
import { type FrontDoor, runtimeSocketOf, startHaproxy } from "./haproxy-child.js";
import { fleetInstance, type Instance, soleInstance, startInstance, stopInstance } from "./instance.js";
import { recordGroup, writeLaunchState } from "./launch-state.js";
import { reload } from "./reload.js";
import { controlSocketOf, makeRuntimeDir, runtimeDirOf } from "./runtime-dir.js";
import type { Fleet, FleetLayout } from "./types.js";
import { watchInstance } from "./watch.js";

const BALANCER_START_MS = 10_000;

/**
 * `launch`, with one instance or many. The key and every check come first, in one place, before anything
 * starts. Without --instances or --gpus, one vLLM serves on the port clients call, with no balancer in
 * between. With them, N instances on 127.0.0.1 and ports P+1..P+N, one per GPU, each its own process group,
 * and HAProxy on the port clients know, in front of them: requests go straight from HAProxy to vLLM, launch
 * is never in their path, and if launch is killed they go on being served. SIGHUP or `studio-serve reload`
 * restarts a fleet's instances one at a time, each drained in HAProxy first. Ctrl-C, SIGTERM, SIGQUIT (and
 * SIGHUP for one instance) or `studio-serve stop` stop everything; again to force. Whatever ends the run,
 * every process group it started is stopped before launch exits.
 */
export async function runFleet(
  parsed: ParsedServeArgs,
  layout: FleetLayout,
  io: CliIo,
  planGpu: GpuSource,
): Promise<number> {
  const plan = readLaunchSettings(parsed, io);
  const { host } = plan.built.listen;
  const helpFor = `launch ${parsed.kind}`;
  const apiKey = plan.key === undefined ? undefined : io.env[plan.key.name];
  if (layout.runtimeLora && apiKey === undefined && !isLoopbackHost(host)) {
    throw new UsageError(
      `--runtime-lora: lets callers load adapters from paths; on ${host} (not loopback) it needs an API key (--api-key-env)`,
      helpFor,
    );
  }
  const sole = layout.gpus.length === 0;
  const maxNumSeqs = sole ? 0 : await instanceBatch(parsed, planGpu);
  const maxConnections = sole ? 0 : frontDoorLimit(layout, maxNumSeqs, io, helpFor);
  const extraEnv = layout.runtimeLora ? { VLLM_ALLOW_RUNTIME_LORA_UPDATING: "True" } : {};
  if (layout.runtimeLora) {
    io.err(
      "studio-serve: --runtime-lora: vLLM lets anyone who can call it load adapters from paths on this machine; use it on trusted networks only\n",
    );
  }
  const fleet: Fleet = {
    plan,
    io,
    dir: runtimeDirOf(plan.built.listen.port, io.env),
    instances: [],
    balancer: undefined,
    metricsPort: sole ? undefined : frontDoorMetricsPort(plan.built.listen.port, layout.gpus.length),
    adapters: new Map(),
    stop: new AbortController(),
    apiKey,
    reloading: undefined,
    stopSignal: undefined,
    exitCode: undefined,
    saveState: () => {},
  };
  if (sole) {
    fleet.instances.push(soleInstance(plan, extraEnv, io));
    // A launch of one is a launch like another: its directory, state and control socket let `status
    // --launch`, `stop`, `reload` and `adapter` find it, and a launch after a kill stop what it left.
    const dirProblem = await claimRuntimeDir(fleet);
    if (dirProblem !== undefined) return dirProblem;
    fleet.saveState = () => saveState(fleet);
    const control = await serveControl(controlSocketOf(fleet.dir), (request, say) =>
      handleControl(fleet, request, say),
    );
    return await supervised(
      fleet,
      true,
      () => serveAlone(fleet),
      async () => {
        const code = await stopAlone(fleet);
        closeRuntimeDir(fleet, control);
        return code;
      },
    );
  }
  const door: FrontDoor = {
    ...plan.built.listen,
    instancePorts: layout.gpus.map((_, i) => plan.built.listen.port + 1 + i),
    maxNumSeqs,
    maxConnections,
    metricsPort: frontDoorMetricsPort(plan.built.listen.port, layout.gpus.length),
    routing: layout.routing,
  };
  const ready = await prepareFrontDoor(fleet, layout, door, helpFor);
  if (typeof ready === "number") return ready;
  fleet.instances.push(
    ...layout.gpus.map((gpu, i) => fleetInstance(parsed, i, gpu, door.instancePorts[i] ?? 0, extraEnv, io)),
  );
  fleet.saveState = () => saveState(fleet);
  // The control socket answers from the first moment, so a second launch on this port refuses while this
  // one is still loading (and `reload` or `adapter` are told to wait) instead of taking over its directory.
  let serving = false;
  const control = await serveControl(controlSocketOf(fleet.dir), (request, say) => {
    if (serving || request.op === "instances" || request.op === "stop") {
      return handleControl(fleet, request, say);
    }
    say("the launch is still starting its instances; try again once it is ready");
    return Promise.resolve(false);
  });
  return await supervised(
    fleet,
    false,
    () =>
      serveUntilStopped(fleet, door, ready.haproxyPath, () => {
        serving = true;
      }),
    async () => {
      await stopEverything(fleet, control);
      return undefined;
    },
  );
}

/**
 * Where the front door serves its own metrics: the port after its instances' (P+N+1), on 127.0.0.1 only,
 * so it stays the same across restarts of a launch and a Prometheus config written for it holds.
 */
export function frontDoorMetricsPort(port: number, instances: number): number {
  return port + instances + 1;
}

/**
 * The launch's private directory: made, or taken over from a launch that was killed on this port (what it
 * left running is stopped first); refused while another launch serves the port. Launch's exit code if not.
 */
async function claimRuntimeDir(fleet: Fleet): Promise<number | undefined> {
  const { io } = fleet;
  const dirProblem = await makeRuntimeDir(fleet.dir, fleet.plan.stopGraceMs, (line) =>
    io.err(`studio-serve: ${line}\n`),
  );
  if (dirProblem === undefined) return undefined;
  io.err(`studio-serve: ${escapeForTerminal(dirProblem)}\n`);
  return ExitCode.Failure;
}

/** Last of all, once every process it ran is gone: the control socket and the directory. */
function closeRuntimeDir(fleet: Fleet, control: NetServer): void {
  control.close();
  rmSync(fleet.dir, { recursive: true, force: true });
}

/**
 * Before a fleet starts anything: the ports fit, HAProxy is on PATH, the GPUs exist, what a killed launch on
 * this port left is stopped (it holds the ports checked next), the private directory is made and the port
 * is free. Returns HAProxy's path, or launch's exit code.
 */
async function prepareFrontDoor(
  fleet: Fleet,
  layout: FleetLayout,
  door: FrontDoor,
  helpFor: string,
): Promise<{ haproxyPath: string } | number> {
  const { io } = fleet;
  const { host, port } = door;
  if (port + layout.gpus.length > 65535) {
    throw new UsageError(
      `--port: the instances listen on ports ${port + 1} to ${port + layout.gpus.length}, above 65535 (given ${port})`,
      helpFor,
    );
  }
  if (door.metricsPort > 65535) {
    throw new UsageError(
      `--port: the front door's metrics listen on port ${door.metricsPort} (after the instances'), above 65535 (given ${port})`,
      helpFor,
    );
  }
  const haproxyPath = await findExecutable("haproxy", io.env.PATH);
  if (haproxyPath === undefined) {
    io.err(
      "studio-serve: haproxy is not on PATH (it is in /usr/sbin on Debian and Ubuntu). Install it with: apt-get install haproxy\n",
    );
    return ExitCode.NotFound;
  }
  const asked = layout.gpus.flatMap((group) => group.split(","));
  const missing = await missingGpus(asked, io);
  if (missing === undefined) {
    io.err("studio-serve: warning: nvidia-smi is not on PATH or did not answer: the GPUs were not checked\n");
  } else if (missing.length > 0) {
    const need =
      asked.length === layout.gpus.length
        ? ""
        : `${layout.gpus.length} instances of ${asked.length / layout.gpus.length} GPUs need ${asked.length}; `;
    io.err(
      `studio-serve: ${layout.gpusFlag}: ${need}this machine has no GPU ${missing.map((gpu) => escapeForTerminal(gpu)).join(", ")} (nvidia-smi -L lists them)\n`,
    );
    return ExitCode.Failure;
  }
  const dirProblem = await claimRuntimeDir(fleet);
  if (dirProblem !== undefined) return dirProblem;
  if ((await probePort(host, port)).state !== "free") {
    io.err(`studio-serve: --port: ${host}:${port} is not free for HAProxy; choose another --port\n`);
    rmSync(fleet.dir, { recursive: true, force: true });
    return ExitCode.Failure;
  }
  if ((await probePort("127.0.0.1", door.metricsPort)).state !== "free") {
    io.err(
      `studio-serve: --port: 127.0.0.1:${door.metricsPort}, where the front door serves its metrics (port P+N+1), is not free; choose another --port\n`,
    );
    rmSync(fleet.dir, { recursive: true, force: true });
    return ExitCode.Failure;
  }
  return { haproxyPath };
}

/**
 * Owns the stop signals while `run` runs: the first stops gracefully (vLLM gets SIGINT for a Ctrl-C, else
 * SIGTERM), a second forces everything (SIGKILL); a closed stdout or stderr (EPIPE) stops as SIGTERM does.
 * SIGHUP restarts a fleet's instances, and stops a launch of one. `stop` then stops whatever was started,
 * whatever ended the run; its code wins for a launch of one stopped by a signal (vLLM's own exit code, as a
 * shell would report it).
 */
async function supervised(
  fleet: Fleet,
  sole: boolean,
  run: () => Promise<number>,
  stop: () => Promise<number | undefined>,
): Promise<number> {
  const { io, plan } = fleet;
  const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGQUIT", ...(sole ? (["SIGHUP"] as const) : [])];
  const onStop = (signal: NodeJS.Signals) => {
    if (fleet.stopSignal === undefined) {
      fleet.stopSignal = signal;
      io.err(
        sole
          ? `studio-serve: ${signal}: stopping vLLM (up to ${plan.stopGraceMs / 1000} s, then SIGKILL; again to force)\n`
          : `studio-serve: ${signal}: stopping HAProxy and the vLLM instances (again to force)\n`,
      );
      fleet.stop.abort();
      return;
    }
    io.err(
      sole
        ? "studio-serve: forcing vLLM to stop (SIGKILL to its process group)\n"
        : "studio-serve: forcing everything to stop (SIGKILL)\n",
    );
    fleet.balancer?.group.kill();
    for (const instance of fleet.instances) instance.vllm?.group.kill();
  };
  const onHangUp = () => void reload(fleet);
  for (const signal of signals) process.on(signal, onStop);
  if (!sole) process.on("SIGHUP", onHangUp);
  // A closed output pipe stops launch as SIGTERM would; never forcing, even after a signal (a terminal's
  // Ctrl-C ends `| head` as well, and the stop it started must stay graceful).
  const unwatchOutput = io.onOutputClosed?.(() => {
    if (fleet.stopSignal === undefined) onStop("SIGPIPE");
  });
  let code: number = ExitCode.Failure;
  try {
    code = await run();
  } finally {
    fleet.stop.abort();
    const stopCode = await stop();
    for (const signal of signals) process.removeListener(signal, onStop);
    unwatchOutput?.();
    process.removeListener("SIGHUP", onHangUp);
    if (sole && fleet.stopSignal !== undefined && stopCode !== undefined) code = stopCode;
  }
  return code;
}

/** A launch of one: vLLM on the port clients call; ready once it answers; launch ends when vLLM does. */
async function serveAlone(fleet: Fleet): Promise<number> {
  const { io, plan } = fleet;
  const instance = fleet.instances[0] as Instance;
  const started = await startInstance(instance, fleet.stop.signal, fleet.saveState);
  if (typeof started === "object") return started.code;
  if (started === undefined) return ExitCode.Ok;
  instance.serving = true;
  watchInstance(fleet, instance);
  const { model, baseURL } = plan.built.client;
  // One write: whoever reads up to "ready:" (a script, a test) has the snippet with it.
  io.out(
    `ready: ${baseURL} serves "${model}" (smoke completion answered in ${formatDuration(started * 1000)})\n` +
      clientSnippet(plan.built.client, plan.key?.name),
  );
  io.err("studio-serve: press Ctrl-C to stop vLLM\n");
  await untilStopped(fleet.stop.signal);
  return fleet.exitCode ?? ExitCode.Ok;
}

/** Stops a launch of one's vLLM; after a stop signal, says how it ended and passes its code on. */
async function stopAlone(fleet: Fleet): Promise<number | undefined> {
  const instance = fleet.instances[0] as Instance;
  const signal = fleet.stopSignal;
  const exit = await stopInstance(instance, stopReason(fleet), graceful(signal));
  if (exit === undefined || signal === undefined) return undefined;
  fleet.io.err(`studio-serve: vLLM stopped (${describeExit(exit, true)})\n`);
  return exitCodeOf(exit);
}

/** What stopped the launch, as its `stopped` events say. */
function stopReason(fleet: Fleet): string {
  return fleet.stopSignal === undefined ? "launch stopped" : `signal ${fleet.stopSignal}`;
}

/** vLLM stops gracefully on SIGINT (Ctrl-C) and SIGTERM; HUP and QUIT would kill it without cleanup. */
function graceful(signal: NodeJS.Signals | undefined): NodeJS.Signals {
  return signal === "SIGINT" ? "SIGINT" : "SIGTERM";
}

function untilStopped(stop: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (stop.aborted) resolve();
    stop.addEventListener("abort", () => resolve(), { once: true });
  });
}

async function serveUntilStopped(
  fleet: Fleet,
  door: FrontDoor,
  haproxyPath: string,
  nowServing: () => void,
): Promise<number> {
  const { io, instances, plan } = fleet;
  const ports = door.instancePorts;
  io.err(
    `studio-serve: starting ${instances.length} vLLM instances (GPUs ${instances.map((i) => i.gpu).join(instances.some((i) => i.gpu?.includes(",")) ? " | " : ", ")}; ports ${ports.join(", ")} on 127.0.0.1)\n`,
  );
  // Each group is on record as soon as it runs: a launch killed while they load leaves nothing unknown.
  const results = await Promise.all(
    instances.map((instance) => startInstance(instance, fleet.stop.signal, fleet.saveState)),
  );
  if (fleet.stop.signal.aborted) return ExitCode.Ok;
  for (const [i, result] of results.entries()) {
    if (typeof result !== "number") {
      io.err(
        `studio-serve: instance ${i} (port ${ports[i]}) did not start (its reason is above); stopping\n`,
      );
      return result?.code ?? ExitCode.Failure;
    }
  }
  for (const instance of instances) {
    instance.serving = true;
    watchInstance(fleet, instance);
  }

  const { host, port } = door;
  const group = startHaproxy(haproxyPath, fleet.dir, door, io);
  fleet.balancer = { group, socket: runtimeSocketOf(fleet.dir) };
  fleet.saveState();
  let balancerExited = false;
  void group.exited.then(() => {
    balancerExited = true;
    fleet.stop.abort();
  });
  const listening = await waitForListening(host, port, fleet.stop.signal);
  if (!listening) {
    io.err(
      balancerExited
        ? "studio-serve: HAProxy exited at start (its errors are above)\n"
        : "studio-serve: HAProxy did not listen in time\n",
    );
    return ExitCode.Failure;
  }
  try {
    await smokeCompletion(plan.chat, plan.built.client.model, fleet.stop.signal);
  } catch (error) {
    if (fleet.stop.signal.aborted) return balancerExited ? ExitCode.Failure : ExitCode.Ok;
    io.err(`studio-serve: the smoke completion through HAProxy failed: ${messageOf(error)}\n`);
    return ExitCode.SmokeFailed;
  }
  nowServing();
  io.out(
    `ready: ${plan.built.client.baseURL} serves "${plan.built.client.model}" through HAProxy over ${instances.length} vLLM instances\n` +
      `front door metrics (Prometheus): http://127.0.0.1:${door.metricsPort}/metrics; \`studio-serve prometheus --launch ${port} --out DIR\` scrapes it and the instances\n`,
  );
  io.err(
    `studio-serve: SIGHUP (kill -HUP ${process.pid}) or \`studio-serve reload --port ${port}\` restarts the instances one at a time; Ctrl-C or \`studio-serve stop --port ${port}\` stops everything\n`,
  );
  await untilStopped(fleet.stop.signal);
  if (balancerExited) {
    io.err("studio-serve: HAProxy exited; stopping the vLLM instances\n");
    return ExitCode.Failure;
  }
  return instances.some((instance) => instance.serving) ? ExitCode.Ok : ExitCode.Failure;
}

async function handleControl(fleet: Fleet, request: ControlRequest, say: (line: string) => void) {
  if (request.op === "reload") return await reload(fleet, say);
  if (request.op === "instances") {
    // One root URL a line, for `status --launch`: a fleet's instances listen on loopback only.
    for (const instance of fleet.instances) say(instance.plan.built.client.rootURL);
    return true;
  }
  if (request.op === "stop") {
    say(
      fleet.instances[0]?.gpu === undefined // a launch of one: its vLLM takes the environment's GPUs
        ? `launch (pid ${process.pid}) is stopping vLLM`
        : `launch (pid ${process.pid}) is stopping HAProxy and its ${fleet.instances.length} vLLM instances`,
    );
    fleet.io.err("studio-serve: `studio-serve stop` asked to stop\n");
    fleet.stop.abort();
    return true;
  }
  return await changeAdapter(fleet, request, say);
}

/** Records launch's own pid and every group it runs, so whoever comes after a kill can find them. */
function saveState(fleet: Fleet): void {
  const { host, port } = fleet.plan.built.listen;
  writeLaunchState(fleet.dir, {
    launch: { pid: process.pid, startTicks: processStartTicks(process.pid) ?? "0" },
    host,
    port,
    balancer: recordGroup(fleet.balancer?.group.pgid),
    metricsPort: fleet.metricsPort,
    instances: fleet.instances.map((instance) => ({
      port: instance.plan.built.listen.port,
      gpu: instance.gpu ?? "",
      group: recordGroup(instance.vllm?.group.pgid),
    })),
  });
}

/** HAProxy first (SIGUSR1: it finishes what it has), then every vLLM group, the control socket, the directory. */
async function stopEverything(fleet: Fleet, control: NetServer): Promise<void> {
  await fleet.balancer?.group.stop({ graceMs: fleet.plan.stopGraceMs, signal: "SIGUSR1" });
  const signal = graceful(fleet.stopSignal);
  await Promise.all(fleet.instances.map((instance) => stopInstance(instance, stopReason(fleet), signal)));
  closeRuntimeDir(fleet, control);
}

async function waitForListening(host: string, port: number, stop: AbortSignal): Promise<boolean> {
  const deadline = Date.now() + BALANCER_START_MS;
  while (Date.now() < deadline && !stop.aborted) {
    if ((await probePort(host, port)).state === "in-use") return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}
