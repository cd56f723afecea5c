import { checkString, oneOf, refuse } from "./internal/validate.js";

/**
 * How a front door picks the instance for a request; one vocabulary for `launch --instances` (HAProxy) and
 * production-stack's router (`stack values`):
 * - `least-busy`: the instance with the fewest open requests;
 * - `session`: one instance per session header value (consistent hashing with bounded load), least-busy
 *   for a request without the header;
 * - `prefix`: as `session`, and a request without the header is keyed on the start of its conversation
 *   (the first user message, after a system prompt), so its next turn lands where vLLM's prefix cache holds
 *   the turns before it.
 */
export type RoutingPolicy = "least-busy" | "session" | "prefix";

export const ROUTING_POLICIES: readonly RoutingPolicy[] = ["least-busy", "session", "prefix"];

/** The header that names a session when none is given: the one vLLM's router and Ray Serve LLM read. */
export const DEFAULT_SESSION_HEADER = "x-session-id";

export const checkRoutingPolicy = oneOf(ROUTING_POLICIES);

/**
 * A header name HAProxy's configuration and production-stack's router both take as written: letters,
 * digits, '-', '_' and '.' (HTTP allows more, but '#' starts a comment and quotes a string in HAProxy).
 */
export function checkSessionHeader(value: unknown, field: string): string {
  const header = checkString(value, field);
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(header)) {
    refuse(field, "must be a header name of letters, digits, '-', '_' and '.' (at most 64)", value);
  }
  return header;
}
