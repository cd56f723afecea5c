import { hostPort } from "../internal/hosts.js";
import {
  checkSeconds,
  checkUpstreams,
  DEFAULT_READ_TIMEOUT_SECONDS,
  SOCKET_PATH,
  upstreamText,
} from "../internal/upstreams.js";
import {
  checkHost,
  checkKnownKeys,
  checkObject,
  checkPort,
  checkPositiveInteger,
  refuse,
} from "../internal/validate.js";
import { DEFAULT_HOST } from "../listen-address.js";
import { vllmDefaultOf } from "../options/engine-options.js";
import {
  checkRoutingPolicy,
  checkSessionHeader,
  DEFAULT_SESSION_HEADER,
  type RoutingPolicy,
} from "../routing.js";
import { affinityBackendLines, affinityFrontendLines } from "./haproxy-routing.js";

export interface HaproxyConfigOptions {
  /** The vLLM instances, as `host:port` (`[::1]:8001` for IPv6). At least one. */
  servers: readonly string[];
  /** The port HAProxy listens on. */
  listen: number;
  /** The address HAProxy listens on. Default `127.0.0.1`. */
  host?: string;
  /**
   * How many requests each instance runs at once: vLLM's `--max-num-seqs`. HAProxy sends an instance no more
   * than this and queues the rest, so the next free sequence slot anywhere takes the next request. Default
   * 1024, the most vLLM batches by default (on large GPUs; 256 on others).
   */
  maxNumSeqs?: number;
  /**
   * Connections the front door holds at once, waiting or served. Default: four times what the instances run
   * together (`servers.length * maxNumSeqs * 4`), at least 4096.
   */
  maxConnections?: number;
  /** Seconds HAProxy waits for an instance to send more (and a queued request for a slot). Default 600. */
  readTimeoutSeconds?: number;
  /**
   * An absolute path for HAProxy's runtime API socket (admin level, mode 0600): `set server vllm/vllm-0 state
   * drain` then moves an instance's traffic away without a reload. No socket when absent.
   */
  runtimeSocket?: string;
  /**
   * How an instance is picked (see RoutingPolicy): `least-busy` (the default), `session` or `prefix`, which
   * keep a conversation on the instance whose prefix cache holds it.
   */
  routing?: RoutingPolicy;
  /** The header that names a session, with `session` and `prefix` routing. Default `x-session-id`. */
  sessionHeader?: string;
  /**
   * A port on 127.0.0.1 where HAProxy's own Prometheus exporter answers `/metrics`: requests, responses by
   * code, queues and each instance's state. None when absent.
   */
  metricsPort?: number;
}

/** The most sequences vLLM batches by default, on the largest GPUs (the engine-option table's default). */
export const VLLM_MAX_NUM_SEQS_DEFAULT = vllmDefaultOf("maxNumSeqs") as number;
/** The least the front door holds by default. */
export const MIN_FRONT_CONNECTIONS = 4096;
/** HAProxy's own ceiling for maxconn is far higher; past a million, a typo is likelier than a need. */
export const MAX_FRONT_CONNECTIONS = 1_000_000;
/** The backend's name in the configuration: the runtime API addresses servers as `vllm/vllm-<i>`. */
export const HAPROXY_BACKEND = "vllm";

/** The name of instance `index` in the backend, as the runtime API and `show stat` call it. */
export function haproxyServerName(index: number): string {
  return `vllm-${index}`;
}

/** The front door's connection limit when none is given. */
export function defaultMaxConnections(instances: number, maxNumSeqs = VLLM_MAX_NUM_SEQS_DEFAULT): number {
  return Math.min(MAX_FRONT_CONNECTIONS, Math.max(MIN_FRONT_CONNECTIONS, instances * maxNumSeqs * 4));
}

/**
 * The most connections HAProxy can hold under an open-file limit: two descriptors each (the caller's and
 * the instance's), after a reserve for its listeners, health checks, runtime socket and logs.
 */
export function connectionsWithinFileLimit(openFiles: number, instances: number): number {
  return Math.max(0, Math.floor((openFiles - 100 - 4 * instances) / 2));
}

/**
 * A whole HAProxy (2.6 or newer) configuration that spreads requests over several vLLM instances: the least
 * busy instance takes the next request (vLLM's cost is per open sequence), connections to the instances stay
 * open between requests (reused only after a client's first request, HAProxy's `http-reuse safe`, so a client
 * can retry what an instance's idle timeout cut), a connection an instance refuses is tried again on another,
 * each streamed chunk leaves as soon as the instance sends it (`option http-no-delay`), and a health check on
 * `/health` takes a dead instance out by itself.
 */
export function haproxyConfig(options: HaproxyConfigOptions): string {
  const input = checkObject(options, "options");
  checkKnownKeys(
    input,
    [
      "servers",
      "listen",
      "host",
      "maxNumSeqs",
      "maxConnections",
      "readTimeoutSeconds",
      "runtimeSocket",
      "routing",
      "sessionHeader",
      "metricsPort",
    ],
    "the HAProxy config",
  );
  const listen = checkPort(input.listen, "listen");
  const host = input.host === undefined ? DEFAULT_HOST : checkHost(input.host, "host");
  const servers = checkUpstreams(input.servers, "servers", { host, port: listen }, "HAProxy", false);
  const seqs =
    input.maxNumSeqs === undefined
      ? VLLM_MAX_NUM_SEQS_DEFAULT
      : checkPositiveInteger(input.maxNumSeqs, "maxNumSeqs");
  const maxConnections =
    input.maxConnections === undefined
      ? defaultMaxConnections(servers.length, seqs)
      : checkConnections(input.maxConnections);
  const timeout =
    input.readTimeoutSeconds === undefined
      ? DEFAULT_READ_TIMEOUT_SECONDS
      : checkSeconds(input.readTimeoutSeconds, "readTimeoutSeconds", 2_147_483);
  const socket = input.runtimeSocket === undefined ? undefined : checkSocket(input.runtimeSocket);
  const routing = input.routing === undefined ? "least-busy" : checkRoutingPolicy(input.routing, "routing");
  if (routing === "least-busy" && input.sessionHeader !== undefined) {
    refuse("sessionHeader", "applies to routing 'session' or 'prefix' only", input.sessionHeader);
  }
  const sessionHeader =
    input.sessionHeader === undefined
      ? DEFAULT_SESSION_HEADER
      : checkSessionHeader(input.sessionHeader, "sessionHeader");
  const metricsPort =
    input.metricsPort === undefined ? undefined : checkPort(input.metricsPort, "metricsPort");
  if (metricsPort !== undefined && metricsPort === listen)
    refuse("metricsPort", "must differ from listen", metricsPort);
  const named = servers.map((server, index) => ({
    name: haproxyServerName(index),
    address: upstreamText(server),
  }));
  return [
    "# Load balancer for vLLM instances, generated by @finetune-studio/serve-kit (HAProxy 2.6 or newer).",
    "global",
    "    # Every connection the front door holds, waiting or served; HAProxy raises its file limit to match.",
    `    maxconn ${maxConnections}`,
    ...(socket === undefined
      ? []
      : [
          "    # The runtime API: drains an instance (set server ... state drain) without a reload.",
          `    stats socket ${socket} mode 600 level admin`,
        ]),
    "",
    "defaults",
    "    mode http",
    "    timeout connect 5s",
    "    # A long generation that is not streamed sends nothing until it is done; a queued request waits too.",
    `    timeout client ${timeout}s`,
    `    timeout server ${timeout}s`,
    `    timeout queue ${timeout}s`,
    "    timeout http-request 30s",
    "    timeout http-keep-alive 60s",
    "    # Each streamed chunk leaves when vLLM sends it: without this, HAProxy sends an unfinished response",
    "    # with MSG_MORE and the kernel holds its bytes up to 200 ms waiting for more.",
    "    option http-no-delay",
    "    # Idle connections to the instances serve any caller's request, a new caller's first one too, as",
    "    # nginx's upstream keep-alive pool does (the default, safe, opens a new one for it). Measured with 256",
    "    # paced streams: the first chunk's p99 fell from 1.4-2x plain nginx's to 1.0-1.5x (a noisy figure).",
    "    http-reuse always",
    "    # A refused connection (an instance restarting or gone) is tried again, on another instance. Retrying",
    "    # more (empty-response) would copy every request into a buffer: twice HAProxy's cost per request.",
    "    retries 3",
    "    retry-on conn-failure",
    "    option redispatch 1",
    "",
    "frontend studio_serve",
    `    bind ${hostPort(host, listen)}`,
    `    maxconn ${maxConnections}`,
    ...affinityFrontendLines(routing, sessionHeader),
    `    default_backend ${HAPROXY_BACKEND}`,
    ...(metricsPort === undefined
      ? []
      : [
          "",
          "# HAProxy's own metrics for Prometheus, on loopback only.",
          "frontend metrics",
          `    bind 127.0.0.1:${metricsPort}`,
          "    http-request use-service prometheus-exporter if { path /metrics }",
          "    http-request return status 404",
        ]),
    "",
    `backend ${HAPROXY_BACKEND}`,
    "    # The instance with the fewest open requests takes the next one: generations vary a lot in length.",
    "    balance leastconn",
    "    option httpchk GET /health",
    "    http-check expect status 200",
    "    # Each instance runs at most --max-num-seqs requests; HAProxy queues the rest for the first free slot.",
    `    default-server check inter 2s fall 2 rise 2 maxconn ${seqs}`,
    ...named.map(({ name, address }) => `    server ${name} ${address}`),
    ...affinityBackendLines(routing, HAPROXY_BACKEND, named, seqs),
    "",
  ].join("\n");
}

function checkConnections(value: unknown): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > MAX_FRONT_CONNECTIONS) {
    refuse("maxConnections", `must be a whole number from 1 to ${MAX_FRONT_CONNECTIONS}`, value);
  }
  return value;
}

function checkSocket(value: unknown): string {
  if (typeof value !== "string" || !SOCKET_PATH.test(value)) {
    refuse(
      "runtimeSocket",
      "must be an absolute path of letters, digits, '.', '_', '-' and '/' (at most 200)",
      value,
    );
  }
  return value;
}
