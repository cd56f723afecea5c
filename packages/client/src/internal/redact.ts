// Anything a server sends back may echo a secret (a 401 page quoting the header, a reason phrase naming the
// token). Every part of an answer that an error keeps or prints passes through `redact` first. It walks
// without recursion, stops at a depth, and never throws: a hostile body cannot make it fail.

export const REDACTED = "[redacted]";
/** Deeper parts of a body are replaced by a marker; no real error body nests this deep. */
export const MAX_REDACT_DEPTH = 64;
const TOO_DEEP = "[nested too deep]";

/** A copy of `value` with every occurrence of each secret, in every string and key, replaced. */
export function redact<T>(value: T, secrets: readonly string[]): T {
  if (typeof value === "string") return redactText(value, secrets) as T;
  if (typeof value !== "object" || value === null) return value;
  const root: { value?: unknown } = {};
  // Each entry: a value to copy, where to put the copy, and its depth.
  const stack: [unknown, Record<string, unknown>, string, number][] = [[value, root, "value", 0]];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    const [item, into, key, depth] = entry;
    if (typeof item === "string") into[key] = redactText(item, secrets);
    else if (typeof item !== "object" || item === null) into[key] = item;
    else if (depth >= MAX_REDACT_DEPTH) into[key] = TOO_DEEP;
    else {
      const copy = (Array.isArray(item) ? [] : {}) as Record<string, unknown>;
      into[key] = copy;
      for (const [name, child] of Object.entries(item)) {
        stack.push([child, copy, redactText(name, secrets), depth + 1]);
      }
    }
  }
  return root.value as T;
}

export function redactText(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) if (result.includes(secret)) result = result.split(secret).join(REDACTED);
  return result;
}

/** Whether `text` contains any of the secrets. */
export function containsSecret(text: string, secrets: readonly string[]): boolean {
  return secrets.some((secret) => text.includes(secret));
}
