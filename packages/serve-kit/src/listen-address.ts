import { checkHost, checkPort } from "./internal/validate.js";
import type { ListenAddress } from "./serve-options.js";

/** Where vLLM listens unless told otherwise: loopback only, on vLLM's own default port. */
export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_PORT = 8000;

/**
 * Checks a listen address by the rules the builders use (an IP address or host name; a port 1..65535) and
 * fills in the defaults (127.0.0.1, 8000). Throws a `ServeConfigError` naming `host` or `port`.
 */
export function checkListenAddress(address: { host?: unknown; port?: unknown } = {}): ListenAddress {
  return {
    host: address.host === undefined ? DEFAULT_HOST : checkHost(address.host, "host"),
    port: address.port === undefined ? DEFAULT_PORT : checkPort(address.port, "port"),
  };
}
