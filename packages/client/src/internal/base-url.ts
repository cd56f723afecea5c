import { isThisMachine } from "@finetune-studio/internal";
import { StudioValidationError } from "../errors.js";

/**
 * Checks a base URL and returns it as the string every API path is appended to: no trailing slash. `sendsSecret` says whether a credential
 * will travel with requests; then `http://` to another host is refused unless `allowInsecureHttp`.
 * `rootPath` reads the root's path from the URL's (vLLM's server may be named with `/v1` at the end).
 */
export function parseBaseUrl(
  value: unknown,
  options: {
    field: string;
    sendsSecret: boolean;
    allowInsecureHttp: boolean;
    rootPath?: (pathname: string) => string;
  },
): string {
  const fail = (rule: string, received?: string) => new StudioValidationError(options.field, rule, received);
  if (typeof value !== "string" || value.trim() === "") {
    const got = typeof value === "string" ? "an empty string" : value === null ? "null" : typeof value;
    throw fail("is required: an absolute http:// or https:// URL", got);
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // Not echoed: a string that is not a URL may be anything, a pasted token included.
    const got = `a string of ${value.length} characters that is not a URL`;
    throw fail("must be an absolute http:// or https:// URL", got);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw fail("must use http:// or https://", `scheme ${url.protocol}`);
  }
  if (url.username !== "" || url.password !== "") {
    throw fail("must not carry credentials (user:password@); use the token option");
  }
  if (url.search !== "" || url.hash !== "") {
    throw fail("must not have a query or a fragment", `${url.origin}${url.pathname}`);
  }
  // A token over plain http can be read by anyone on the path, unless it never leaves this machine: loopback
  // and the unspecified addresses. A name under `.localhost` does not count: a resolver may send it anywhere.
  if (
    url.protocol === "http:" &&
    options.sendsSecret &&
    !options.allowInsecureHttp &&
    !isThisMachine(url.hostname)
  ) {
    throw fail(
      "must use https:// for a host other than this machine, because the token would travel in clear " +
        "(pass allowInsecureHttp: true to accept that)",
      url.origin,
    );
  }
  const path = options.rootPath?.(url.pathname) ?? url.pathname.replace(/\/+$/, "");
  return url.origin + path;
}
