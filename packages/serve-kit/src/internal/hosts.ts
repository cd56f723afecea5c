// vLLM (uvicorn) listens on every interface for these.
const WILDCARD_HOSTS = new Set(["0.0.0.0", "::", "0:0:0:0:0:0:0:0"]);

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const HOSTNAME =
  /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

export function isIPv4(host: string): boolean {
  return IPV4.test(host);
}

/** An IPv6 literal without brackets. The WHATWG URL parser is the validator, so no Node module is needed. */
export function isIPv6(host: string): boolean {
  if (!host.includes(":") || !/^[0-9A-Fa-f:.]+$/.test(host)) return false;
  try {
    new URL(`http://[${host}]/`);
    return true;
  } catch {
    return false;
  }
}

export function isIpAddress(host: string): boolean {
  return isIPv4(host) || isIPv6(host);
}

export function isHostname(host: string): boolean {
  return HOSTNAME.test(host);
}

export function isWildcardHost(host: string): boolean {
  return WILDCARD_HOSTS.has(host);
}

export function isLoopbackHost(host: string): boolean {
  return (
    host === "localhost" ||
    host === "::1" ||
    host === "0:0:0:0:0:0:0:1" ||
    (isIPv4(host) && host.startsWith("127."))
  );
}

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
