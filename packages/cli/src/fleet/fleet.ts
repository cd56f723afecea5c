import { rmSync } from "node:fs";
import type { Server } from "node:http";
import type { Server as NetServer } from "node:net";
import { join } from "node:path";
import { escapeForTerminal, isLoopbackHost, type ProcessGroup, probePort } from "@finetune-studio/internal";
import { ExitCode } from "../exit-codes.js";
import { type CliIo, UsageError } from "../io.js";
import { type LaunchPlan, planLaunch } from "../launch/plan.js";
import { describeExit, messageOf } from "../launch/report.js";
import { callLoraRoute } from "../lora-routes.js";
import type { ParsedServeArgs } from "../serve-args.js";
import { findExecutable } from "../which.js";
import { type ControlRequest, serveControl } from "./control.js";
import { missingGpus } from "./gpus.js";
import { type Instance, planInstance, startInstance, stopInstance } from "./instance.js";
import { startNginx } from "./nginx-child.js";
import { createRelay, leastBusyReady, type Routing } from "./relay.js";
import { rollingReload } from "./reload.js";
import { controlSocketOf, makeRuntimeDir, runtimeDirOf } from "./runtime-dir.js";

/** How a multi-instance launch runs: one instance per GPU, and whether adapters may change at runtime. */
export interface FleetLayout {
  gpus: string[];
  runtimeLora: boolean;
}

/** Everything a multi-instance launch holds while it runs. */
export interface Fleet {
  readonly plan: LaunchPlan;
  readonly io: CliIo;
  readonly dir: string;
  readonly instances: Instance[];
  readonly routing: Routing;
  /** Adapters loaded at runtime (name to path): a restarted instance gets them again. */
  readonly adapters: Map<string, string>;
  /** Aborted when launch stops: ends every wait. */
  readonly stop: AbortController;
  apiKey: string | undefined;
  /** Called when a request ends at an instance: the reload waits on it. */
  settled: () => void;
}

const LORA_ROUTE_TIMEOUT_MS = 120_000;
const NGINX_START_MS = 10_000;

/**
 * `launch ... --instances N` (or `--gpus`): N vLLM instances on 127.0.0.1 and ports P+1..P+N, one per GPU,
 * each its own process group; a relay per instance inside launch on a Unix socket; and nginx on the port
 * clients know, in front of the relays. SIGHUP or `studio-serve reload` restarts the instances one at a
 * time while the others serve; Ctrl-C, SIGTERM or SIGQUIT stops everything (again to force).
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
  const nginxPath = await findExecutable("nginx", io.env.PATH);
  if (nginxPath === undefined) {
    io.err(
      "studio-serve: nginx is not on PATH (it is in /usr/sbin on Debian and Ubuntu). Install it with: apt-get install nginx\n",
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
  const portState = await probePort(host, port);
  if (portState.state !== "free") {
    io.err(`studio-serve: --port: ${host}:${port} is not free for nginx; choose another --port\n`);
    return ExitCode.Failure;
  }
  const extraEnv = layout.runtimeLora ? { VLLM_ALLOW_RUNTIME_LORA_UPDATING: "True" } : {};
  if (layout.runtimeLora) {
    io.err(
      "studio-serve: --runtime-lora: vLLM lets anyone who can call it load adapters from paths on this machine; use it on trusted networks only\n",
    );
  }
  const instances = layout.gpus.map((gpu, i) => planInstance(parsed, i, gpu, port + 1 + i, extraEnv, io));
  const dir = runtimeDirOf(port, io.env);
  const dirProblem = await makeRuntimeDir(dir);
  if (dirProblem !== undefined) {
    io.err(`studio-serve: ${escapeForTerminal(dirProblem)}\n`);
    return ExitCode.Failure;
  }
  const fleet: Fleet = {
    plan,
    io,
    dir,
    instances,
    routing: {
      ports: instances.map((instance) => instance.plan.built.listen.port),
      target: instances.map((_, i) => i),
      inflight: instances.map(() => 0),
      ready: instances.map(() => false),
    },
    adapters: new Map(),
    stop: new AbortController(),
    apiKey,
    settled: () => {},
  };
  const parts: Parts = { relays: [], control: undefined, nginx: undefined };
  // The control socket answers from the first moment, so a second launch on this port refuses while this
  // one is still loading (and `reload` or `adapter` are told to wait) instead of taking over its directory.
  let serving = false;
  parts.control = await serveControl(controlSocketOf(fleet.dir), (request, say) => {
    if (serving || request.op === "instances") return handleControl(fleet, request, say);
    say("the launch is still starting its instances; try again once it is ready");
    return Promise.resolve(false);
  });
  let forced = false;
  const stopSignals = ["SIGINT", "SIGTERM", "SIGQUIT"] as const;
  let count = 0;
  const onStop = (signal: NodeJS.Signals) => {
    count += 1;
    if (count === 1) {
      io.err(`studio-serve: ${signal}: stopping nginx and the vLLM instances (again to force)\n`);
      fleet.stop.abort();
    } else {
      forced = true;
      io.err("studio-serve: forcing everything to stop (SIGKILL)\n");
      parts.nginx?.kill();
      for (const instance of instances) instance.vllm?.group.kill();
    }
  };
  const onHangUp = () => void reload(fleet);
  for (const signal of stopSignals) process.on(signal, onStop);
  process.on("SIGHUP", onHangUp);
  try {
    return await serveUntilStopped(fleet, parts, () => {
      serving = true;
    });
  } finally {
    fleet.stop.abort();
    await stopEverything(fleet, parts, () => forced);
    for (const signal of stopSignals) process.removeListener(signal, onStop);
    process.removeListener("SIGHUP", onHangUp);
  }
}

interface Parts {
  relays: Server[];
  control: NetServer | undefined;
  nginx: ProcessGroup | undefined;
}

async function serveUntilStopped(fleet: Fleet, parts: Parts, nowServing: () => void): Promise<number> {
  const { io, instances, routing, plan } = fleet;
  io.err(
    `studio-serve: starting ${instances.length} vLLM instances (GPUs ${instances.map((i) => i.gpu).join(", ")}; ports ${routing.ports.join(", ")} on 127.0.0.1)\n`,
  );
  const problems = await Promise.all(instances.map((instance) => startInstance(instance, fleet.stop.signal)));
  for (const [i, problem] of problems.entries()) {
    if (problem !== undefined) {
      io.err(`studio-serve: instance ${i} (port ${routing.ports[i]}) did not start: ${problem}\n`);
      return ExitCode.Failure;
    }
    routing.ready[i] = true;
  }
  for (const instance of instances) watchInstance(fleet, instance);

  const sockets = instances.map((_, i) => join(fleet.dir, `relay-${i}.sock`));
  for (const [i, socket] of sockets.entries()) {
    const relay = createRelay(i, routing, () => fleet.settled());
    parts.relays.push(relay);
    await new Promise<void>((resolve, reject) => {
      relay.once("error", reject);
      relay.listen(socket, resolve);
    });
  }
  const { host, port } = plan.built.listen;
  const nginxPath = (await findExecutable("nginx", io.env.PATH)) ?? "nginx";
  const nginx = startNginx(nginxPath, fleet.dir, { host, port }, sockets, io);
  parts.nginx = nginx;
  let nginxExited = false;
  void nginx.exited.then(() => {
    nginxExited = true;
    fleet.stop.abort();
  });
  const listening = await waitForListening(host, port, fleet.stop.signal);
  if (!listening) {
    io.err(
      nginxExited
        ? "studio-serve: nginx exited at start (its errors are above)\n"
        : "studio-serve: nginx did not listen in time\n",
    );
    return ExitCode.Failure;
  }
  try {
    await plan.chat.complete(
      { model: plan.built.client.model, messages: [{ role: "user", content: "Say hello." }], max_tokens: 1 },
      { signal: fleet.stop.signal, timeoutMs: 120_000 },
    );
  } catch (error) {
    if (fleet.stop.signal.aborted) return nginxExited ? ExitCode.Failure : ExitCode.Ok;
    io.err(`studio-serve: the smoke completion through nginx failed: ${messageOf(error)}\n`);
    return ExitCode.SmokeFailed;
  }
  nowServing();
  io.out(
    `ready: ${plan.built.client.baseURL} serves "${plan.built.client.model}" through nginx over ${instances.length} vLLM instances\n`,
  );
  io.err(
    `studio-serve: SIGHUP (kill -HUP ${process.pid}) or \`studio-serve reload --port ${port}\` restarts the instances one at a time; Ctrl-C stops everything\n`,
  );
  await new Promise<void>((resolve) => {
    if (fleet.stop.signal.aborted) resolve();
    fleet.stop.signal.addEventListener("abort", () => resolve(), { once: true });
  });
  if (nginxExited) {
    io.err("studio-serve: nginx exited; stopping the vLLM instances\n");
    return ExitCode.Failure;
  }
  return instances.some((instance) => routing.ready[instance.index]) ? ExitCode.Ok : ExitCode.Failure;
}

/** An instance that exits on its own: its relay sends to the others; with none left, launch stops. */
function watchInstance(fleet: Fleet, instance: Instance): void {
  const vllm = instance.vllm;
  if (vllm === undefined) return;
  void vllm.exited.then((exit) => {
    if (instance.restarting || fleet.stop.signal.aborted || instance.vllm !== vllm) return;
    const { routing, io } = fleet;
    routing.ready[instance.index] = false;
    for (let i = 0; i < routing.target.length; i += 1) {
      if (routing.target[i] === instance.index) routing.target[i] = leastBusyReady(routing) ?? i;
    }
    io.err(
      `studio-serve: instance ${instance.index} (port ${routing.ports[instance.index]}) exited (${describeExit(exit)}); the others serve its share. \`studio-serve reload\` starts it again.\n`,
    );
    instance.prepared?.events.write({
      event: "crashed",
      exitCode: exit.code ?? 1,
      signal: exit.signal,
      lastLines: vllm.recent.lines().slice(-15),
    });
    if (!routing.ready.some(Boolean)) {
      io.err("studio-serve: no vLLM instance is left; stopping\n");
      fleet.stop.abort();
    }
  });
}

let running: Promise<boolean> | undefined;
const listeners = new Set<(line: string) => void>();

/**
 * A rolling reload, its progress on launch's stderr and to `say` (a `studio-serve reload` caller); a trigger
 * while one runs joins it (and hears the rest of its progress) instead of starting another.
 */
export function reload(fleet: Fleet, say?: (line: string) => void): Promise<boolean> {
  if (say !== undefined) listeners.add(say);
  if (running === undefined) {
    const tell = (line: string) => {
      fleet.io.err(`studio-serve: ${line}\n`);
      for (const listener of listeners) listener(line);
    };
    running = rollingReload(fleet, tell, watchInstance).finally(() => {
      running = undefined;
      listeners.clear();
    });
  }
  return running;
}

async function handleControl(fleet: Fleet, request: ControlRequest, say: (line: string) => void) {
  if (request.op === "reload") return await reload(fleet, say);
  if (request.op === "instances") {
    // One root URL a line, for `status --launch`: the instances listen on loopback only.
    for (const instance of fleet.instances) say(instance.plan.built.client.rootURL);
    return true;
  }
  return await changeAdapter(fleet, request, say);
}

/** Loads or unloads an adapter on every instance, reporting each; remembered for the next reload. */
async function changeAdapter(
  fleet: Fleet,
  request: Extract<ControlRequest, { op: "adapter" }>,
  say: (line: string) => void,
): Promise<boolean> {
  const results = await Promise.all(
    fleet.instances.map((instance) =>
      callLoraRoute(
        instance.plan.built.client.rootURL,
        request.action,
        request.action === "load"
          ? { lora_name: request.name, lora_path: request.path }
          : { lora_name: request.name },
        { ...(fleet.apiKey === undefined ? {} : { apiKey: fleet.apiKey }), timeoutMs: LORA_ROUTE_TIMEOUT_MS },
      ),
    ),
  );
  for (const [i, result] of results.entries()) {
    const where = `instance ${i} (port ${fleet.routing.ports[i]})`;
    say(
      result.ok
        ? `${where}: ${escapeForTerminal(result.message)}`
        : `${where}: failed${result.status ? ` (HTTP ${result.status})` : ""}: ${escapeForTerminal(result.message)}`,
    );
  }
  if (request.action === "load" && results.some((result) => result.ok)) {
    fleet.adapters.set(request.name, request.path);
  }
  if (request.action === "unload") fleet.adapters.delete(request.name);
  const ok = results.every((result) => result.ok);
  fleet.io.err(
    `studio-serve: adapter ${request.action} ${escapeForTerminal(request.name)}: ${ok ? "done on every instance" : "failed on some instances"}\n`,
  );
  return ok;
}

/** nginx first (SIGQUIT: it finishes what it has), then every vLLM group, the relays, and the directory. */
async function stopEverything(fleet: Fleet, parts: Parts, forced: () => boolean): Promise<void> {
  const graceMs = fleet.plan.stopGraceMs;
  await parts.nginx?.stop({ graceMs: forced() ? 0 : graceMs, signal: "SIGQUIT" });
  await Promise.all(fleet.instances.map((instance) => stopInstance(instance, "launch stopped")));
  for (const relay of parts.relays) {
    relay.close();
    relay.closeAllConnections();
  }
  parts.control?.close();
  rmSync(fleet.dir, { recursive: true, force: true });
}

async function waitForListening(host: string, port: number, stop: AbortSignal): Promise<boolean> {
  const deadline = Date.now() + NGINX_START_MS;
  while (Date.now() < deadline && !stop.aborted) {
    if ((await probePort(host, port)).state === "in-use") return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}
