import { isLoopbackHost, isWildcardHost } from "@finetune-studio/internal";
import { StudioValidationError } from "../errors.js";

// A token sent over plain http can be read by anyone on the path. To this machine it never leaves the
// host, so loopback (and the unspecified addresses, which connect to this machine) may use http. A name
// under `.localhost` is not this machine: the system resolver may send it anywhere (isLoopbackHost).
function isThisMachine(hostname: string): boolean {
  return isLoopbackHost(hostname) || isWildcardHost(hostname);
}

/**
 * Checks a base URL and returns it without a trailing slash. `sendsSecret` says whether a credential
 * will travel with requests; then `http://` to another host is refused unless `allowInsecureHttp`.
 */
export function parseBaseUrl(
  value: unknown,
  options: { field: string; sendsSecret: boolean; allowInsecureHttp: boolean },
): URL {
  const { field } = options;
  if (typeof value !== "string" || value.trim() === "") {
    throw new StudioValidationError(field, "is required: an absolute http:// or https:// URL", kind(value));
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // Not echoed: a string that is not a URL may be anything, a pasted token included.
    throw new StudioValidationError(
      field,
      "must be an absolute http:// or https:// URL",
      `a string of ${value.length} characters that is not a URL`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new StudioValidationError(field, "must use http:// or https://", `scheme ${url.protocol}`);
  }
  if (url.username !== "" || url.password !== "") {
    throw new StudioValidationError(
      field,
      "must not carry credentials (user:password@); use the token option",
    );
  }
  if (url.search !== "" || url.hash !== "") {
    throw new StudioValidationError(
      field,
      "must not have a query or a fragment",
      `${url.origin}${url.pathname}`,
    );
  }
  if (
    url.protocol === "http:" &&
    options.sendsSecret &&
    !options.allowInsecureHttp &&
    !isThisMachine(url.hostname)
  ) {
    throw new StudioValidationError(
      field,
      "must use https:// for a host other than this machine, because the token would travel in clear " +
        "(pass allowInsecureHttp: true to accept that)",
      url.origin,
    );
  }
  url.pathname = url.pathname.replace(/\/+$/, "");
  return url;
}

/** The base URL as a string without a trailing slash, for openapi-fetch. */
export function baseUrlString(url: URL): string {
  return `${url.origin}${url.pathname}`.replace(/\/+$/, "");
}

function kind(value: unknown): string {
  if (value === undefined) return "undefined";
  if (value === null) return "null";
  return typeof value === "string" ? "an empty string" : typeof value;
}
