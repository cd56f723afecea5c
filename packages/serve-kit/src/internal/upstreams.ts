import { isThisMachine } from "@finetune-studio/internal";
import { hostPort, parseHostPort } from "./hosts.js";
import { refuse } from "./validate.js";

// The vLLM instances a load balancer (nginx or HAProxy) spreads requests over, as a user lists them.

/** Seconds a balancer (nginx or HAProxy) waits for an instance to send more: a long generation can be slow. */
export const DEFAULT_READ_TIMEOUT_SECONDS = 600;

export type Upstream = { host: string; port: number } | { socket: string };

/** An absolute socket path of plain characters: nothing that could end a balancer's directive. */
export const SOCKET_PATH = /^\/[A-Za-z0-9._/-]{1,200}$/;

export function upstreamText(upstream: Upstream): string {
  return "socket" in upstream ? `unix:${upstream.socket}` : hostPort(upstream.host, upstream.port);
}

/**
 * Checks the list: at least one, none twice, none the balancer's own address (requests would loop), each
 * `host:port` (or `unix:/path` where `sockets` allows it). `field` names the list, `balancer` the program.
 */
export function checkUpstreams(
  value: unknown,
  field: string,
  listen: { host: string; port: number },
  balancer: string,
  sockets: boolean,
): Upstream[] {
  if (!Array.isArray(value) || value.length === 0) {
    refuse(
      field,
      sockets ? "must list at least one host:port or unix:/path" : "must list at least one host:port",
      value,
    );
  }
  const seen = new Set<string>();
  return value.map((item: unknown, index) => {
    const itemField = `${field}[${index}]`;
    const upstream = sockets ? parseUpstream(item, itemField) : parseHostPort(item, itemField);
    const key = upstreamText(upstream);
    if (seen.has(key)) refuse(itemField, "must not repeat an instance", item);
    seen.add(key);
    if (!("socket" in upstream) && sameEndpoint(upstream, listen)) {
      refuse(itemField, `must not be the address ${balancer} listens on (requests would loop)`, item);
    }
    return upstream;
  });
}

function parseUpstream(item: unknown, field: string): Upstream {
  if (typeof item === "string" && item.startsWith("unix:")) {
    const socket = item.slice("unix:".length);
    if (!SOCKET_PATH.test(socket)) {
      refuse(
        field,
        "must be unix: and an absolute path of letters, digits, '.', '_', '-' and '/' (at most 200)",
        item,
      );
    }
    return { socket };
  }
  return parseHostPort(item, field);
}

function sameEndpoint(
  upstream: { host: string; port: number },
  listen: { host: string; port: number },
): boolean {
  if (upstream.port !== listen.port) return false;
  if (upstream.host === listen.host) return true;
  return isThisMachine(upstream.host) && isThisMachine(listen.host);
}

/** A whole number of seconds from 1 to `max`. */
export function checkSeconds(value: unknown, field: string, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > max) {
    refuse(field, `must be a whole number of seconds from 1 to ${max}`, value);
  }
  return value;
}
