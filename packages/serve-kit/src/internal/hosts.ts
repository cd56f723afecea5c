import { isIPv6, isWildcardHost } from "@finetune-studio/internal";

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
