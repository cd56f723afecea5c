import { escapeForTerminal, type ProcessGroup, probePort } from "@finetune-studio/internal";
import type { LaunchSettings } from "../instance/launch-settings.js";
import { smokeCompletion } from "../instance/smoke.js";
import type { GpuSource } from "../plan/plan-input.js";
import type { ScaleRuleName } from "../shared/autoscale-flags.js";
import { ExitCode } from "../shared/exit-codes.js";
import { type CliIo, UsageError } from "../shared/io.js";
import { messageOf } from "../shared/messages.js";
import type { ParsedServeArgs } from "../shared/serve-args.js";
import { findExecutable } from "../shared/which.js";
import type { Balancer, Door } from "./door.js";
import { frontDoorLimit, instanceBatch } from "./front-door-limit.js";
import { missingGpus } from "./gpus.js";
import { type FrontDoor, runtimeSocketOf, startHaproxy } from "./haproxy-child.js";
import { openRequests, queuedRequests, setServerState } from "./haproxy-runtime.js";
import { fleetInstance, type Instance, type Slot } from "./instance.js";
import type { FleetLayout } from "./types.js";

const BALANCER_START_MS = 10_000;

/** What the HAProxy door is made from: the launch as the user asked for it. */
export interface HaproxyDoorInput {
  parsed: ParsedServeArgs;
  layout: FleetLayout;
  plan: LaunchSettings;
  extraEnv: NodeJS.ProcessEnv;
  io: CliIo;
  planGpu: GpuSource;
  helpFor: string;
  /** The launch's private directory: HAProxy's configuration and runtime socket go there. */
  dir: string;
}

/**
 * Where the front door serves its own metrics: the port after its instances' (P+N+1), on 127.0.0.1 only,
 * so it stays the same across restarts of a launch and a Prometheus config written for it holds.
 */
export function frontDoorMetricsPort(port: number, instances: number): number {
  return port + instances + 1;
}

/**
 * N instances on 127.0.0.1 and ports P+1..P+N, each on GPUs of its own, and HAProxy on the port clients
 * know, in front of them: requests go straight from HAProxy to vLLM, launch is never in their path, and if
 * launch is killed they go on being served. Launch steers it through its runtime API only (drain, ready,
 * maintenance), never by a reload. Its limits and ports are checked here, before anything starts.
 */
export async function haproxyDoor(input: HaproxyDoorInput): Promise<Door> {
  const { parsed, layout, plan, extraEnv, io, helpFor } = input;
  const maxNumSeqs = await instanceBatch(parsed, input.planGpu);
  const { host, port } = plan.built.listen;
  const settings: FrontDoor = {
    host,
    port,
    instancePorts: layout.gpus.map((_, i) => port + 1 + i),
    maxNumSeqs,
    maxConnections: frontDoorLimit(layout, maxNumSeqs, io, helpFor),
    metricsPort: frontDoorMetricsPort(port, layout.gpus.length),
    routing: layout.routing,
    // An elastic fleet starts MIN instances; the slots past them wait in maintenance for the autoscaler.
    enabledServers: layout.scaling?.min ?? layout.gpus.length,
  };
  checkPortRange(settings, helpFor);
  let group: ProcessGroup | undefined;
  let haproxyPath = "";
  const slotFor = (index: number, gpu: string): (Slot & { gpu: string }) | undefined => {
    const slotPort = settings.instancePorts[index];
    return slotPort === undefined ? undefined : { index, gpu, port: slotPort };
  };
  return {
    describe: (instances) => `HAProxy and its ${instances} vLLM instances`,
    slots: layout.gpus.slice(0, settings.enabledServers).map((gpu, i) => slotFor(i, gpu) as Slot),
    slotFor,
    instanceFor: (slot, hooks) =>
      fleetInstance(parsed, { ...slot, gpu: slot.gpu ?? "" }, extraEnv, io, hooks),
    async check() {
      const found = await findHaproxy(io);
      if (typeof found === "number") return found;
      haproxyPath = found;
      return await checkGpus(layout, io);
    },
    checkPorts: () => checkPortsFree(settings, io),
    announceStart: (instances) => announceStart(instances, io),
    async open(stop, hooks) {
      group = startHaproxy(haproxyPath, input.dir, settings, io);
      hooks.spawned();
      return await untilOpen(group, settings, plan, io, stop, hooks.ended);
    },
    announceReady: () => announceReady(settings, plan, io, layout.scaling?.rule),
    balancer: runtimeBalancer(input.dir),
    get pgid() {
      return group?.pgid;
    },
    metricsPort: settings.metricsPort,
    close: async (graceMs) => {
      // SIGUSR1: HAProxy stops listening and finishes what it has.
      await group?.stop({ graceMs, signal: "SIGUSR1" });
    },
    kill: () => group?.kill(),
    exitCodeAfterStop: (code) => code,
    exitCodeWhenNoneLeft() {
      io.err("studio-serve: no vLLM instance is left; stopping\n");
      return ExitCode.Failure;
    },
  };
}

/** HAProxy's runtime API on the launch's socket. */
export function runtimeBalancer(dir: string): Balancer {
  const socket = runtimeSocketOf(dir);
  return {
    set: (index, state) => setServerState(socket, index, state),
    openRequests: (index) => openRequests(socket, index),
    queued: () => queuedRequests(socket),
  };
}

function checkPortRange(door: FrontDoor, helpFor: string): void {
  const { port } = door;
  const last = door.instancePorts.at(-1) ?? port;
  if (last > 65535) {
    throw new UsageError(
      `--port: the instances listen on ports ${port + 1} to ${last}, above 65535 (given ${port})`,
      helpFor,
    );
  }
  if (door.metricsPort > 65535) {
    throw new UsageError(
      `--port: the front door's metrics listen on port ${door.metricsPort} (after the instances'), above 65535 (given ${port})`,
      helpFor,
    );
  }
}

async function findHaproxy(io: CliIo): Promise<string | number> {
  const path = await findExecutable("haproxy", io.env.PATH);
  if (path !== undefined) return path;
  io.err(
    "studio-serve: haproxy is not on PATH (it is in /usr/sbin on Debian and Ubuntu). Install it with: apt-get install haproxy\n",
  );
  return ExitCode.NotFound;
}

/** The GPUs asked for exist (nvidia-smi -L); a machine that cannot tell is warned about, not refused. */
async function checkGpus(layout: FleetLayout, io: CliIo): Promise<number | undefined> {
  const asked = layout.gpus.flatMap((group) => group.split(","));
  const missing = await missingGpus(asked, io);
  if (missing === undefined) {
    io.err("studio-serve: warning: nvidia-smi is not on PATH or did not answer: the GPUs were not checked\n");
  } else if (missing.length > 0) {
    const need =
      asked.length === layout.gpus.length
        ? ""
        : `${layout.gpus.length} instances of ${asked.length / layout.gpus.length} GPUs need ${asked.length}; `;
    // A MAX the machine cannot hold is a range to fix, as a usage error: the fleet could never reach it.
    const elastic = layout.scaling === undefined ? "" : `MAX ${layout.scaling.max}: `;
    io.err(
      `studio-serve: ${layout.gpusFlag}: ${elastic}${need}this machine has no GPU ${missing.map((gpu) => escapeForTerminal(gpu)).join(", ")} (nvidia-smi -L lists them)\n`,
    );
    return layout.scaling === undefined ? ExitCode.Failure : ExitCode.Usage;
  }
  return undefined;
}

async function checkPortsFree(door: FrontDoor, io: CliIo): Promise<number | undefined> {
  const { host, port, metricsPort } = door;
  if ((await probePort(host, port)).state !== "free") {
    io.err(`studio-serve: --port: ${host}:${port} is not free for HAProxy; choose another --port\n`);
    return ExitCode.Failure;
  }
  if ((await probePort("127.0.0.1", metricsPort)).state !== "free") {
    io.err(
      `studio-serve: --port: 127.0.0.1:${metricsPort}, where the front door serves its metrics (port P+N+1), is not free; choose another --port\n`,
    );
    return ExitCode.Failure;
  }
  return undefined;
}

function announceStart(instances: readonly Instance[], io: CliIo): void {
  const gpus = instances.map((i) => i.gpu).join(instances.some((i) => i.gpu?.includes(",")) ? " | " : ", ");
  io.err(
    `studio-serve: starting ${instances.length} vLLM instances (GPUs ${gpus}; ports ${instances.map((i) => i.port).join(", ")} on 127.0.0.1)\n`,
  );
}

/** HAProxy listening, then a one-token completion through it; launch's exit code when either fails. */
async function untilOpen(
  group: ProcessGroup,
  door: FrontDoor,
  plan: LaunchSettings,
  io: CliIo,
  stop: AbortSignal,
  ended: (code: number) => void,
): Promise<number | undefined> {
  let open = false;
  let exited = false;
  void group.exited.then(() => {
    exited = true;
    if (open && !stop.aborted) io.err("studio-serve: HAProxy exited; stopping the vLLM instances\n");
    ended(ExitCode.Failure);
  });
  if (!(await waitForListening(door.host, door.port, stop))) {
    if (exited) io.err("studio-serve: HAProxy exited at start (its errors are above)\n");
    else if (stop.aborted) return undefined;
    else io.err("studio-serve: HAProxy did not listen in time\n");
    return ExitCode.Failure;
  }
  try {
    await smokeCompletion(plan.chat, plan.built.client.model, stop);
  } catch (error) {
    if (stop.aborted) return undefined;
    io.err(`studio-serve: the smoke completion through HAProxy failed: ${messageOf(error)}\n`);
    return ExitCode.SmokeFailed;
  }
  open = true;
  return undefined;
}

async function waitForListening(host: string, port: number, stop: AbortSignal): Promise<boolean> {
  const deadline = Date.now() + BALANCER_START_MS;
  while (Date.now() < deadline && !stop.aborted) {
    if ((await probePort(host, port)).state === "in-use") return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

function announceReady(door: FrontDoor, plan: LaunchSettings, io: CliIo, rule?: ScaleRuleName): void {
  const { port } = door;
  io.out(
    `ready: ${plan.built.client.baseURL} serves "${plan.built.client.model}" through HAProxy over ${fleetSize(door, rule)} vLLM instances\n` +
      `front door metrics (Prometheus): http://127.0.0.1:${door.metricsPort}/metrics; \`studio-serve prometheus --launch ${port} --out DIR\` scrapes it and the instances\n`,
  );
  io.err(
    `studio-serve: SIGHUP (kill -HUP ${process.pid}) or \`studio-serve reload --port ${port}\` restarts the instances one at a time; Ctrl-C or \`studio-serve stop --port ${port}\` stops everything\n`,
  );
}

/** "2", or for an elastic fleet "1 (up to 3, as load asks)", naming the HPA's rule when it decides. */
function fleetSize(door: FrontDoor, rule: ScaleRuleName | undefined): string {
  const max = door.instancePorts.length;
  if (door.enabledServers === max) return String(max);
  const by = rule === "hpa" ? ", by the Kubernetes HPA's rule" : "";
  return `${door.enabledServers} (up to ${max}, as load asks${by})`;
}
