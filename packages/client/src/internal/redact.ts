// Anything the server sends back may echo the token (a 401 page quoting the header, say). Error bodies
// and headers pass through here before they are stored on an error.

export const REDACTED = "[redacted]";

/** Replaces every occurrence of each secret in every string of `value`, deeply; returns a copy. */
export function redactSecrets<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  return scrub(value, secrets) as T;
}

function scrub(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === "string") {
    let text = value;
    for (const secret of secrets) text = text.split(secret).join(REDACTED);
    return text;
  }
  if (Array.isArray(value)) return value.map((item) => scrub(item, secrets));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [scrub(key, secrets) as string, scrub(item, secrets)]),
    );
  }
  return value;
}

/** Whether `text` contains any of the secrets. */
export function containsSecret(text: string, secrets: readonly string[]): boolean {
  return secrets.some((secret) => text.includes(secret));
}
