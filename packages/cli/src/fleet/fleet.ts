import { rmSync } from "node:fs";
import type { Server as NetServer } from "node:net";
import { escapeForTerminal, isLoopbackHost, probePort, processStartTicks } from "@finetune-studio/internal";
import { connectionsWithinFileLimit, defaultMaxConnections } from "@finetune-studio/serve-kit";
import { ExitCode } from "../exit-codes.js";
import { type CliIo, UsageError } from "../io.js";
import { planLaunch } from "../launch/plan.js";
import { messageOf } from "../launch/report.js";
import { smokeCompletion } from "../launch/smoke.js";
import type { ParsedServeArgs } from "../serve-args.js";
import { findExecutable } from "../which.js";
import { changeAdapter } from "./adapters.js";
import { type ControlRequest, serveControl } from "./control.js";
import { hardOpenFileLimit } from "./file-limit.js";
import { missingGpus } from "./gpus.js";
import { type FrontDoor, runtimeSocketOf, startHaproxy } from "./haproxy-child.js";
import { planInstance, startInstance, stopInstance } from "./instance.js";
import { recordGroup, writeLaunchState } from "./launch-state.js";
import { reload } from "./reload.js";
import { controlSocketOf, makeRuntimeDir, runtimeDirOf } from "./runtime-dir.js";
import type { Fleet, FleetLayout } from "./types.js";
import { watchInstance } from "./watch.js";

const BALANCER_START_MS = 10_000;

/**
 * `launch ... --instances N` (or `--gpus`): N vLLM instances on 127.0.0.1 and ports P+1..P+N, one per GPU,
 * each its own process group, and HAProxy on the port clients know, in front of them. Requests go straight
 * from HAProxy to vLLM: launch is never in their path, and if launch is killed they go on being served.
 * SIGHUP or `studio-serve reload` restarts the instances one at a time, each drained in HAProxy first;
 * Ctrl-C, SIGTERM, SIGQUIT or `studio-serve stop` stops everything (again to force).
 */
export async function runFleet(parsed: ParsedServeArgs, layout: FleetLayout, io: CliIo): Promise<number> {
  const plan = planLaunch(parsed, io);
  const { host, port } = plan.built.listen;
  const helpFor = `launch ${parsed.kind}`;
  if (port + layout.gpus.length > 65535) {
    throw new UsageError(
      `--port: the instances listen on ports ${port + 1} to ${port + layout.gpus.length}, above 65535 (given ${port})`,
      helpFor,
    );
  }
  const apiKey = plan.key === undefined ? undefined : io.env[plan.key.name];
  if (layout.runtimeLora && apiKey === undefined && !isLoopbackHost(host)) {
    throw new UsageError(
      `--runtime-lora: lets callers load adapters from paths; on ${host} (not loopback) it needs an API key (--api-key-env)`,
      helpFor,
    );
  }
  const maxConnections = frontDoorLimit(layout, parsed.options.maxNumSeqs, io, helpFor);
  const haproxyPath = await findExecutable("haproxy", io.env.PATH);
  if (haproxyPath === undefined) {
    io.err(
      "studio-serve: haproxy is not on PATH (it is in /usr/sbin on Debian and Ubuntu). Install it with: apt-get install haproxy\n",
    );
    return ExitCode.NotFound;
  }
  const missing = await missingGpus(layout.gpus, io);
  if (missing === undefined) {
    io.err("studio-serve: warning: nvidia-smi is not on PATH or did not answer: the GPUs were not checked\n");
  } else if (missing.length > 0) {
    io.err(
      `studio-serve: --gpus: this machine has no GPU ${missing.map((gpu) => escapeForTerminal(gpu)).join(", ")} (nvidia-smi -L lists them)\n`,
    );
    return ExitCode.Failure;
  }
  // What a killed launch on this port left running is stopped first: it holds the ports checked next.
  const dir = runtimeDirOf(port, io.env);
  const dirProblem = await makeRuntimeDir(dir, plan.stopGraceMs, (line) => io.err(`studio-serve: ${line}\n`));
  if (dirProblem !== undefined) {
    io.err(`studio-serve: ${escapeForTerminal(dirProblem)}\n`);
    return ExitCode.Failure;
  }
  const portState = await probePort(host, port);
  if (portState.state !== "free") {
    io.err(`studio-serve: --port: ${host}:${port} is not free for HAProxy; choose another --port\n`);
    rmSync(dir, { recursive: true, force: true });
    return ExitCode.Failure;
  }
  const extraEnv = layout.runtimeLora ? { VLLM_ALLOW_RUNTIME_LORA_UPDATING: "True" } : {};
  if (layout.runtimeLora) {
    io.err(
      "studio-serve: --runtime-lora: vLLM lets anyone who can call it load adapters from paths on this machine; use it on trusted networks only\n",
    );
  }
  const instances = layout.gpus.map((gpu, i) => planInstance(parsed, i, gpu, port + 1 + i, extraEnv, io));
  const fleet: Fleet = {
    plan,
    io,
    dir,
    instances,
    balancer: undefined,
    adapters: new Map(),
    stop: new AbortController(),
    apiKey,
    reloading: undefined,
    saveState: () => saveState(fleet),
  };
  // The control socket answers from the first moment, so a second launch on this port refuses while this
  // one is still loading (and `reload` or `adapter` are told to wait) instead of taking over its directory.
  let serving = false;
  const control = await serveControl(controlSocketOf(dir), (request, say) => {
    if (serving || request.op === "instances" || request.op === "stop")
      return handleControl(fleet, request, say);
    say("the launch is still starting its instances; try again once it is ready");
    return Promise.resolve(false);
  });
  let forced = false;
  const stopSignals = ["SIGINT", "SIGTERM", "SIGQUIT"] as const;
  let count = 0;
  const onStop = (signal: NodeJS.Signals) => {
    count += 1;
    if (count === 1) {
      io.err(`studio-serve: ${signal}: stopping HAProxy and the vLLM instances (again to force)\n`);
      fleet.stop.abort();
    } else {
      forced = true;
      io.err("studio-serve: forcing everything to stop (SIGKILL)\n");
      fleet.balancer?.group.kill();
      for (const instance of instances) instance.vllm?.group.kill();
    }
  };
  const onHangUp = () => void reload(fleet);
  for (const signal of stopSignals) process.on(signal, onStop);
  process.on("SIGHUP", onHangUp);
  try {
    const door: FrontDoor = {
      host,
      port,
      instancePorts: instances.map((instance) => instance.plan.built.listen.port),
      maxNumSeqs: parsed.options.maxNumSeqs,
      maxConnections,
    };
    return await serveUntilStopped(fleet, door, haproxyPath, () => {
      serving = true;
    });
  } finally {
    fleet.stop.abort();
    await stopEverything(fleet, control, forced);
    for (const signal of stopSignals) process.removeListener(signal, onStop);
    process.removeListener("SIGHUP", onHangUp);
  }
}

/**
 * The front door's connection limit: --max-connections, or four times what the instances batch together;
 * either way within what the open-file limit lets HAProxy hold (a default is lowered to fit, with a note;
 * a chosen value above it is refused, since HAProxy would refuse to start).
 */
function frontDoorLimit(
  layout: FleetLayout,
  maxNumSeqs: number | undefined,
  io: CliIo,
  helpFor: string,
): number {
  const instances = layout.gpus.length;
  const fileLimit = hardOpenFileLimit();
  const fits =
    fileLimit === undefined ? Number.POSITIVE_INFINITY : connectionsWithinFileLimit(fileLimit, instances);
  if (layout.maxConnections !== undefined) {
    if (layout.maxConnections > fits) {
      throw new UsageError(
        `--max-connections: HAProxy can hold at most ${fits} connections under this machine's open-file limit of ${fileLimit} (ulimit -Hn); given ${layout.maxConnections}`,
        helpFor,
      );
    }
    return layout.maxConnections;
  }
  const wanted = defaultMaxConnections(instances, maxNumSeqs);
  if (wanted <= fits) return wanted;
  io.err(
    `studio-serve: note: HAProxy holds at most ${fits} connections here, not ${wanted}: the open-file limit is ${fileLimit} (raise it with ulimit -Hn, or set --max-num-seqs)\n`,
  );
  return fits;
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
    `studio-serve: starting ${instances.length} vLLM instances (GPUs ${instances.map((i) => i.gpu).join(", ")}; ports ${ports.join(", ")} on 127.0.0.1)\n`,
  );
  // Each group is on record as soon as it runs: a launch killed while they load leaves nothing unknown.
  const problems = await Promise.all(
    instances.map((instance) => startInstance(instance, fleet.stop.signal, fleet.saveState)),
  );
  for (const [i, problem] of problems.entries()) {
    if (problem !== undefined) {
      io.err(`studio-serve: instance ${i} (port ${ports[i]}) did not start: ${problem}\n`);
      return ExitCode.Failure;
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
    `ready: ${plan.built.client.baseURL} serves "${plan.built.client.model}" through HAProxy over ${instances.length} vLLM instances\n`,
  );
  io.err(
    `studio-serve: SIGHUP (kill -HUP ${process.pid}) or \`studio-serve reload --port ${port}\` restarts the instances one at a time; Ctrl-C or \`studio-serve stop --port ${port}\` stops everything\n`,
  );
  await new Promise<void>((resolve) => {
    if (fleet.stop.signal.aborted) resolve();
    fleet.stop.signal.addEventListener("abort", () => resolve(), { once: true });
  });
  if (balancerExited) {
    io.err("studio-serve: HAProxy exited; stopping the vLLM instances\n");
    return ExitCode.Failure;
  }
  return instances.some((instance) => instance.serving) ? ExitCode.Ok : ExitCode.Failure;
}

async function handleControl(fleet: Fleet, request: ControlRequest, say: (line: string) => void) {
  if (request.op === "reload") return await reload(fleet, say);
  if (request.op === "instances") {
    // One root URL a line, for `status --launch`: the instances listen on loopback only.
    for (const instance of fleet.instances) say(instance.plan.built.client.rootURL);
    return true;
  }
  if (request.op === "stop") {
    say(`launch (pid ${process.pid}) is stopping HAProxy and its ${fleet.instances.length} vLLM instances`);
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
    instances: fleet.instances.map((instance) => ({
      port: instance.plan.built.listen.port,
      gpu: instance.gpu,
      group: recordGroup(instance.vllm?.group.pgid),
    })),
  });
}

/** HAProxy first (SIGUSR1: it finishes what it has), then every vLLM group, the control socket, the directory. */
async function stopEverything(fleet: Fleet, control: NetServer, forced: boolean): Promise<void> {
  const graceMs = forced ? 0 : fleet.plan.stopGraceMs;
  await fleet.balancer?.group.stop({ graceMs, signal: "SIGUSR1" });
  await Promise.all(fleet.instances.map((instance) => stopInstance(instance, "launch stopped")));
  control.close();
  rmSync(fleet.dir, { recursive: true, force: true });
}

async function waitForListening(host: string, port: number, stop: AbortSignal): Promise<boolean> {
  const deadline = Date.now() + BALANCER_START_MS;
  while (Date.now() < deadline && !stop.aborted) {
    if ((await probePort(host, port)).state === "in-use") return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}
