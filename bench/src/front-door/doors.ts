import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  getFreePort,
  getFreePortFollowedBy,
  type ManagedProcess,
  requireSystemTool,
  startProcess,
  waitForHttp,
  waitForOutput,
} from "@finetune-studio/testing";
import { STUDIO_SERVE } from "../cli-path.js";
import type { StandInKit } from "./stand-ins.js";

// The doors the front-door bench compares, each in front of the same stand-in vLLMs: the front door
// `launch --instances 2` runs, the plain nginx users would put there instead, and HAProxy configured by hand.

export const MODEL = "bench/stand-in";

export interface Door {
  name: string;
  port: number;
}

export interface Launch {
  proc: ManagedProcess;
  /** The front door's port; the instances listen on the two ports after it. */
  port: number;
  instancePorts: readonly number[];
}

/**
 * `studio-serve launch full MODEL --instances 2` over the stand-in (or `instances` of them, of `model`, with
 * `more` arguments), ready once HAProxy answers.
 */
export async function startLaunch(
  kit: Pick<StandInKit, "binDir">,
  env: NodeJS.ProcessEnv = {},
  options: { instances?: number; model?: string; more?: readonly string[] } = {},
): Promise<Launch> {
  const { instances = 2, model = MODEL, more = [] } = options;
  const port = await getFreePortFollowedBy(instances + 1); // the instances, then the front door's metrics
  const proc = startProcess(
    process.execPath,
    [STUDIO_SERVE, "launch", "full", model, "--port", String(port), "--instances", String(instances)].concat([
      "--stop-timeout",
      "5",
      ...more,
    ]),
    { env: { ...process.env, ...env, PATH: `${kit.binDir}:${process.env.PATH ?? ""}` } },
  );
  try {
    await waitForOutput(proc, /^ready: .* through HAProxy/m, 60_000);
  } catch (error) {
    await proc.stop(30_000);
    throw error;
  }
  return { proc, port, instancePorts: Array.from({ length: instances }, (_, i) => port + 1 + i) };
}

/** The balancer a user would write by hand for two instances: least connections, long timeouts, no more. */
export function handHaproxyConfig(port: number, instancePorts: readonly number[]): string {
  return [
    "global",
    "    maxconn 8192",
    "defaults",
    "    mode http",
    "    timeout connect 5s",
    "    timeout client 600s",
    "    timeout server 600s",
    "frontend front",
    `    bind 127.0.0.1:${port}`,
    "    default_backend instances",
    "backend instances",
    "    balance leastconn",
    ...instancePorts.map((instancePort, i) => `    server s${i} 127.0.0.1:${instancePort}`),
    "",
  ].join("\n");
}

/** The front door's own limits, given to launch explicitly so that a hand copy can hold the same. */
export interface DoorLimits {
  /** Requests per instance (launch --max-num-seqs): HAProxy's maxconn on each server. */
  maxNumSeqs: number;
  /** Connections the front door holds (launch --max-connections): HAProxy's global and frontend maxconn. */
  maxConnections: number;
}

/**
 * HAProxy with the front door's limits and streaming settings, by hand: the same global, frontend and
 * per-instance maxconn, timeouts, `option http-no-delay` and `http-reuse always`, and nothing else (no
 * health checks, no routing rules, no control-endpoint rules). What it measures is HAProxy's own floor
 * under the front door's limits; the front door's distance from it is what its extra rules cost.
 */
export function sameLimitsHaproxyConfig(
  port: number,
  instancePorts: readonly number[],
  limits: DoorLimits,
): string {
  return [
    "global",
    `    maxconn ${limits.maxConnections}`,
    "defaults",
    "    mode http",
    "    timeout connect 5s",
    "    timeout client 600s",
    "    timeout server 600s",
    "    timeout queue 600s",
    "    option http-no-delay",
    "    http-reuse always",
    "frontend front",
    `    bind 127.0.0.1:${port}`,
    `    maxconn ${limits.maxConnections}`,
    "    default_backend instances",
    "backend instances",
    "    balance leastconn",
    `    default-server maxconn ${limits.maxNumSeqs}`,
    ...instancePorts.map((instancePort, i) => `    server s${i} 127.0.0.1:${instancePort}`),
    "",
  ].join("\n");
}

/**
 * Plain nginx as the guides for streaming APIs set it up: least connections, kept-alive upstream
 * connections, and `proxy_buffering off` so server-sent events pass as they come. No access log, like the
 * HAProxy doors.
 */
export function plainNginxConfig(dir: string, port: number, instancePorts: readonly number[]): string {
  return [
    "worker_processes auto;",
    "worker_rlimit_nofile 20000;",
    `pid ${join(dir, "nginx.pid")};`,
    `error_log ${join(dir, "error.log")} warn;`,
    "events { worker_connections 8192; }",
    "http {",
    "    access_log off;",
    ...["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map(
      (kind) => `    ${kind}_temp_path ${join(dir, "tmp", kind)};`,
    ),
    "    upstream vllm {",
    "        least_conn;",
    ...instancePorts.map((instancePort) => `        server 127.0.0.1:${instancePort};`),
    "        keepalive 256;",
    "    }",
    "    server {",
    `        listen 127.0.0.1:${port};`,
    "        location / {",
    "            proxy_pass http://vllm;",
    "            proxy_http_version 1.1;",
    '            proxy_set_header Connection "";',
    "            proxy_buffering off;",
    "            proxy_read_timeout 600s;",
    "        }",
    "    }",
    "}",
    "",
  ].join("\n");
}

/** Starts a door's process from its config and waits until it passes /health on to an instance. */
async function startDoor(
  name: string,
  port: number,
  command: string,
  args: string[],
): Promise<ManagedProcess> {
  const proc = startProcess(command, args);
  try {
    await waitForHttp(`http://127.0.0.1:${port}/health`, {
      process: proc,
      timeoutMs: 30_000,
      isReady: (status) => status === 200,
    });
  } catch (error) {
    await proc.stop();
    throw new Error(`${name} did not pass /health on: ${String(error)}`);
  }
  return proc;
}

/**
 * `launch --instances 2` over the stand-in (with `env`), then plain nginx and HAProxy by hand in front of its
 * instances, and with `limits` (given to launch too) HAProxy by hand with those limits; every process goes
 * into `processes`, to be stopped by the caller.
 */
export async function startDoors(
  kit: StandInKit,
  processes: ManagedProcess[],
  env: NodeJS.ProcessEnv = {},
  limits?: DoorLimits,
): Promise<{ launch: Launch; doors: Door[] }> {
  const more =
    limits === undefined
      ? []
      : ["--max-num-seqs", String(limits.maxNumSeqs), "--max-connections", String(limits.maxConnections)];
  const launch = await startLaunch(kit, env, { more });
  processes.push(launch.proc);
  const nginx = await startPlainNginx(kit.binDir, launch.instancePorts);
  processes.push(nginx.proc);
  const hand = await startHandHaproxy(kit.binDir, launch.instancePorts);
  processes.push(hand.proc);
  const doors = [
    { name: "front door", port: launch.port },
    { name: "plain nginx", port: nginx.port },
    { name: "by hand", port: hand.port },
  ];
  if (limits !== undefined) {
    const same = await startSameLimitsHaproxy(kit.binDir, launch.instancePorts, limits);
    processes.push(same.proc);
    doors.push({ name: "same limits by hand", port: same.port });
  }
  return { launch, doors };
}

/** HAProxy with the front door's limits by hand (sameLimitsHaproxyConfig), its config in `dir`. */
async function startSameLimitsHaproxy(dir: string, instancePorts: readonly number[], limits: DoorLimits) {
  const port = await getFreePort();
  const file = join(dir, `same-limits-${port}.cfg`);
  writeFileSync(file, sameLimitsHaproxyConfig(port, instancePorts, limits));
  const proc = await startDoor("HAProxy with the same limits", port, requireSystemTool("haproxy"), [
    "-db",
    "-f",
    file,
  ]);
  return { proc, port };
}

/** HAProxy by hand in front of the instances, its config in `dir`. */
export async function startHandHaproxy(dir: string, instancePorts: readonly number[]) {
  const port = await getFreePort();
  const file = join(dir, `by-hand-${port}.cfg`);
  writeFileSync(file, handHaproxyConfig(port, instancePorts));
  const proc = await startDoor("HAProxy by hand", port, requireSystemTool("haproxy"), ["-db", "-f", file]);
  return { proc, port };
}

/** Plain nginx in front of the instances, its prefix under `dir` (readable by its workers). */
export async function startPlainNginx(dir: string, instancePorts: readonly number[]) {
  const port = await getFreePort();
  const prefix = join(dir, `nginx-${port}`);
  mkdirSync(join(prefix, "tmp"), { recursive: true });
  chmodSync(dir, 0o755);
  chmodSync(prefix, 0o755);
  const conf = join(prefix, "nginx.conf");
  writeFileSync(conf, plainNginxConfig(prefix, port, instancePorts));
  const args = ["-p", prefix, "-c", conf, "-e", join(prefix, "error.log"), "-g", "daemon off;"];
  const proc = await startDoor("plain nginx", port, requireSystemTool("nginx"), args);
  return { proc, port };
}
