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
import { controlEndpointLines } from "./haproxy-guard.js";
import { affinityBackendLines, affinityFrontendLines, usableTrackerLines } from "./haproxy-routing.js";

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
  /**
   * Servers from this index on start in maintenance (HAProxy's `disabled`): slots an elastic fleet holds for
   * instances it may add, readied through the runtime API (`set server ... state ready`) once one serves.
   * Default: every server is in service.
   */
  enabledServers?: number;
}

/** The most sequences vLLM batches by default, on the largest GPUs (the engine-option table's default). */
export const VLLM_MAX_NUM_SEQS_DEFAULT = vllmDefaultOf("maxNumSeqs") as number;
/** The least the front door holds by default. */
export const MIN_FRONT_CONNECTIONS = 4096;
/** HAProxy's own ceiling for maxconn is far higher; past a million, a typo is likelier than a need. */
export const MAX_FRONT_CONNECTIONS = 1_000_000;
/** The frontend's name: every request the front door takes and every answer it sends, its own refusals too. */
export const HAPROXY_FRONTEND = "studio_serve";
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
  const door = checkHaproxyOptions(options);
  return [
    "# Load balancer for vLLM instances, generated by @finetune-studio/serve-kit (HAProxy 2.6 or newer).",
    ...globalLines(door),
    "",
    ...defaultsLines(door.timeoutSeconds),
    "",
    `frontend ${HAPROXY_FRONTEND}`,
    `    bind ${hostPort(door.host, door.listen)}`,
    `    maxconn ${door.maxConnections}`,
    ...controlEndpointLines(),
    ...affinityFrontendLines(door.routing, door.sessionHeader),
    `    default_backend ${HAPROXY_BACKEND}`,
    ...metricsLines(door.metricsPort),
    "",
    ...backendLines(door),
    "",
  ].join("\n");
}

/** haproxyConfig's options, checked, with the defaults filled in. */
interface FrontDoorSettings {
  listen: number;
  host: string;
  servers: { name: string; address: string }[];
  maxNumSeqs: number;
  maxConnections: number;
  timeoutSeconds: number;
  socket: string | undefined;
  routing: RoutingPolicy;
  sessionHeader: string;
  metricsPort: number | undefined;
  /** Servers in service from the start; the rest start `disabled` (enabledServers). */
  enabledServers: number;
}

const OPTION_KEYS = [
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
  "enabledServers",
];

function checkHaproxyOptions(options: HaproxyConfigOptions): FrontDoorSettings {
  const input = checkObject(options, "options");
  checkKnownKeys(input, OPTION_KEYS, "the HAProxy config");
  const listen = checkPort(input.listen, "listen");
  const host = input.host === undefined ? DEFAULT_HOST : checkHost(input.host, "host");
  const servers = checkUpstreams(input.servers, "servers", { host, port: listen }, "HAProxy", false);
  const maxNumSeqs =
    input.maxNumSeqs === undefined
      ? VLLM_MAX_NUM_SEQS_DEFAULT
      : checkPositiveInteger(input.maxNumSeqs, "maxNumSeqs");
  const maxConnections =
    input.maxConnections === undefined
      ? defaultMaxConnections(servers.length, maxNumSeqs)
      : checkConnections(input.maxConnections);
  const timeoutSeconds =
    input.readTimeoutSeconds === undefined
      ? DEFAULT_READ_TIMEOUT_SECONDS
      : checkSeconds(input.readTimeoutSeconds, "readTimeoutSeconds", 2_147_483);
  const metricsPort =
    input.metricsPort === undefined ? undefined : checkPort(input.metricsPort, "metricsPort");
  if (metricsPort !== undefined && metricsPort === listen)
    refuse("metricsPort", "must differ from listen", metricsPort);
  return {
    listen,
    host,
    servers: servers.map((server, index) => ({
      name: haproxyServerName(index),
      address: upstreamText(server),
    })),
    maxNumSeqs,
    maxConnections,
    timeoutSeconds,
    socket: input.runtimeSocket === undefined ? undefined : checkSocket(input.runtimeSocket),
    ...checkRouting(input.routing, input.sessionHeader),
    metricsPort,
    enabledServers:
      input.enabledServers === undefined
        ? servers.length
        : checkEnabledServers(input.enabledServers, servers.length),
  };
}

function checkRouting(policy: unknown, header: unknown): { routing: RoutingPolicy; sessionHeader: string } {
  const routing = policy === undefined ? "least-busy" : checkRoutingPolicy(policy, "routing");
  if (routing === "least-busy" && header !== undefined) {
    refuse("sessionHeader", "applies to routing 'session' or 'prefix' only", header);
  }
  const sessionHeader =
    header === undefined ? DEFAULT_SESSION_HEADER : checkSessionHeader(header, "sessionHeader");
  return { routing, sessionHeader };
}

function globalLines(door: FrontDoorSettings): string[] {
  return [
    "global",
    "    # Every connection the front door holds, waiting or served; HAProxy raises its file limit to match.",
    `    maxconn ${door.maxConnections}`,
    ...(door.socket === undefined
      ? []
      : [
          "    # The runtime API: drains an instance (set server ... state drain) without a reload.",
          `    stats socket ${door.socket} mode 600 level admin`,
        ]),
  ];
}

// What is left of the front door's first-chunk tail against plain nginx (bench: 256 paced streams over two
// instances on 2 shared cores; p99 1.5x nginx's in bench/RESULTS.md, 2-5x in two runs of issue #40, and in
// interleaved runs on a machine other work loaded 1.76x and 1.82x with the guard's first version, 1.07x and
// 0.69x with this one, HAProxy with the same limits by hand 0.94-1.51x beside them; p50 alike), by reading
// the limits and counting:
// - no queue: 256 callers against 2 x 1,024 slots (maxconn per instance) and 8,192 connections, so HAProxy
//   holds no request back and neither limit is reached;
// - the balancer's own cost per streamed request, counted under callgrind (bench/src/front-door/
//   instructions.ts; the machine's load does not change a count): plain nginx (one worker) 33,000
//   instructions, HAProxy with the front door's limits alone 32,000, the front door 38,000 (the
//   control-endpoint guard 3,200, session routing 2,800 for a request without a key);
// - the tail is the machine's: the load client, two stand-ins and the balancer share 2 cores, and one
//   instance called directly, with no balancer at all, showed a p99 1.75x nginx's in RESULTS.md's run.
// So no limit of this configuration makes the gap; HAProxy with the same limits by hand runs beside it in
// the bench ("same limits by hand", bench/RESULTS.md's paced streams). In the full run of this change, on a
// quiet machine: front door 1.18x nginx's p99 at 256 callers (12.8 ms against 10.8), HAProxy with the same
// limits by hand 1.40x, one instance with no balancer 0.64x: the front door sits at HAProxy's own floor.
function defaultsLines(timeout: number): string[] {
  return [
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
    "    # paced streams: the first chunk's p99 fell from 1.4-2x plain nginx's to 1.0-1.5x (a noisy figure: those",
    "    # 256 callers queue nothing here, and HAProxy spends about as many instructions per request as nginx).",
    "    http-reuse always",
    "    # A refused connection (an instance restarting or gone) is tried again, on another instance. Retrying",
    "    # more (empty-response) would copy every request into a buffer: twice HAProxy's cost per request.",
    "    retries 3",
    "    retry-on conn-failure",
    "    option redispatch 1",
  ];
}

function metricsLines(metricsPort: number | undefined): string[] {
  if (metricsPort === undefined) return [];
  return [
    "",
    "# HAProxy's own metrics for Prometheus, on loopback only.",
    "frontend metrics",
    `    bind 127.0.0.1:${metricsPort}`,
    "    http-request use-service prometheus-exporter if { path /metrics }",
    "    http-request return status 404",
  ];
}

/** The one backend: each instance's one bound, whatever routes a request to it. */
function backendLines(door: FrontDoorSettings): string[] {
  return [
    `backend ${HAPROXY_BACKEND}`,
    "    # The instance with the fewest open requests takes the next one: generations vary a lot in length.",
    "    balance leastconn",
    "    option httpchk GET /health",
    "    http-check expect status 200",
    "    # Each instance runs at most --max-num-seqs requests, keyed or not; HAProxy queues the rest.",
    `    default-server check inter 2s fall 2 rise 2 maxconn ${door.maxNumSeqs}`,
    ...(door.enabledServers < door.servers.length
      ? ["    # Slots for instances the fleet may add: out of service until launch readies each one."]
      : []),
    ...door.servers.map(
      ({ name, address }, index) =>
        `    server ${name} ${address}${index < door.enabledServers ? "" : " disabled"}`,
    ),
    ...affinityBackendLines(door.routing, HAPROXY_BACKEND, door.servers),
    ...usableTrackerLines(door.routing, HAPROXY_BACKEND, door.servers),
  ];
}
function checkConnections(value: unknown): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > MAX_FRONT_CONNECTIONS) {
    refuse("maxConnections", `must be a whole number from 1 to ${MAX_FRONT_CONNECTIONS}`, value);
  }
  return value;
}

function checkEnabledServers(value: unknown, servers: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > servers) {
    refuse("enabledServers", `must be a whole number from 1 to the ${servers} servers`, value);
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
