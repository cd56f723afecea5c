import { isHostname, isIPv6, isIpAddress, isWildcardHost } from "@finetune-studio/internal";
import { refuse } from "./validate.js";

// How a listen address is written where a client or a proxy connects to it. What counts as loopback, a
// wildcard or an IP literal is decided once, in @finetune-studio/internal.

/** The host as it goes in a URL: a wildcard becomes the loopback address of its family, IPv6 gets brackets. */
export function hostForUrl(host: string): string {
  if (host === "0.0.0.0") return "127.0.0.1";
  if (isWildcardHost(host)) return "[::1]";
  return isIPv6(host) ? `[${host}]` : host;
}

/** `host:port` as nginx and docker write it, with brackets around IPv6. */
export function hostPort(host: string, port: number): string {
  return `${isIPv6(host) ? `[${host}]` : host}:${port}`;
}

/** `host:port` (`[addr]:port` for IPv6) as a user writes an instance, checked; `field` names it in the error. */
export function parseHostPort(item: unknown, field: string): { host: string; port: number } {
  const match = typeof item === "string" ? /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(item) : null;
  const host = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  const hostOk =
    host !== undefined && (match?.[1] !== undefined ? isIPv6(host) : isIpAddress(host) || isHostname(host));
  if (!hostOk || !Number.isInteger(port) || port < 1 || port > 65535) {
    refuse(field, "must be host:port with a port from 1 to 65535 ([addr]:port for IPv6)", item);
  }
  return { host, port };
}
