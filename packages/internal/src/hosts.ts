// Which hosts are addresses, names, this machine or every interface. Pure string checks with the WHATWG
// URL parser as the IPv6 validator, so they run wherever the packages run (browsers and edge included).

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const HOSTNAME =
  /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** An IPv4 address in dotted-decimal form, the only form a server's `--host` or a URL should carry. */
export function isIPv4(host: string): boolean {
  return IPV4.test(host);
}

/** An IPv6 literal as a server's `--host` takes it: without the brackets a URL puts around it. */
export function isIPv6(host: string): boolean {
  return !host.startsWith("[") && canonicalIPv6(host) !== undefined;
}

export function isIpAddress(host: string): boolean {
  return isIPv4(host) || isIPv6(host);
}

/** A DNS name (labels of letters, digits and inner hyphens), not an address. */
export function isHostname(host: string): boolean {
  return HOSTNAME.test(host);
}

/**
 * Whether a host certainly names this machine, so a token may travel there over plain http: `localhost`
 * itself and the literal loopback addresses (127.0.0.0/8, ::1, ::ffff:127.x.y.z), bracketed or not.
 * A name under `.localhost` does not count: it is resolved through DNS, which may send it anywhere.
 */
export function isLoopbackHost(host: string): boolean {
  if (host.toLowerCase() === "localhost") return true;
  if (isIPv4(host)) return host.startsWith("127.");
  const ipv6 = canonicalIPv6(host);
  return ipv6 === "::1" || (ipv6 !== undefined && /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(ipv6));
}

/** The unspecified addresses: a server bound there listens on every interface. */
export function isWildcardHost(host: string): boolean {
  return host === "0.0.0.0" || canonicalIPv6(host) === "::";
}

/**
 * Whether a connection to `host` stays on this machine, so a token may travel there over plain http: a
 * loopback host, or an unspecified address (connecting to it reaches this machine).
 */
export function isThisMachine(host: string): boolean {
  return isLoopbackHost(host) || isWildcardHost(host);
}

/** The WHATWG URL parser's spelling of an IPv6 literal (lower case, zeros compressed), or undefined. */
function canonicalIPv6(host: string): string | undefined {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  if (!bare.includes(":") || !/^[0-9A-Fa-f:.]+$/.test(bare)) return undefined;
  try {
    return new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
}
