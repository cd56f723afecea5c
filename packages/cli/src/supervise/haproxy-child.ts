import { join } from "node:path";
import { escapeForTerminal, type ProcessGroup, spawnGroup } from "@finetune-studio/internal";
import { haproxyConfig, type RoutingPolicy } from "@finetune-studio/serve-kit";
import { LogLines } from "../instance/log-lines.js";
import type { CliIo } from "../shared/io.js";
import { writeFreshFile } from "../shared/safe-files.js";

/** What the front door is given: where it listens, the instances' ports, and its limits. */
export interface FrontDoor {
  host: string;
  port: number;
  instancePorts: readonly number[];
  /** Requests each instance runs at once: --max-num-seqs, else vLLM's default for the GPU (instanceBatch). */
  maxNumSeqs: number;
  /** The front door's own connection limit: --max-connections, or the default sized for this machine. */
  maxConnections: number;
  /** HAProxy's own Prometheus exporter, on 127.0.0.1 only. */
  metricsPort: number;
  /** Servers in service from the start: the rest are an elastic fleet's spare slots, in maintenance. */
  enabledServers: number;
  /** How it picks an instance (--routing), and the header that names a session (--session-header). */
  routing: { policy: RoutingPolicy; sessionHeader: string | undefined };
}

/** The runtime API's socket in the launch's private directory. */
export function runtimeSocketOf(dir: string): string {
  return join(dir, "haproxy.sock");
}

/**
 * HAProxy on the port clients know, in front of the instances, as a child of launch in its own process group:
 * in the foreground (`-db`), its configuration and runtime socket inside DIR. It is never reloaded: launch
 * drains and readies instances through the runtime API, and if launch dies it goes on serving.
 */
export function startHaproxy(haproxyPath: string, dir: string, door: FrontDoor, io: CliIo): ProcessGroup {
  const conf = join(dir, "haproxy.cfg");
  writeFreshFile(
    conf,
    haproxyConfig({
      servers: door.instancePorts.map((port) => `127.0.0.1:${port}`),
      listen: door.port,
      host: door.host,
      runtimeSocket: runtimeSocketOf(dir),
      maxNumSeqs: door.maxNumSeqs,
      maxConnections: door.maxConnections,
      metricsPort: door.metricsPort,
      enabledServers: door.enabledServers,
      routing: door.routing.policy,
      ...(door.routing.sessionHeader === undefined ? {} : { sessionHeader: door.routing.sessionHeader }),
    }),
  );
  const lines = new LogLines((line) => io.err(`[haproxy] ${escapeForTerminal(line)}\n`));
  return spawnGroup(haproxyPath, ["-db", "-f", conf], {
    env: io.env,
    onOutput: (_stream, chunk) => lines.push(chunk),
  });
}
