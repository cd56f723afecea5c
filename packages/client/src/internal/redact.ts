// Anything a server sends back may echo a secret (a 401 page quoting the header, a reason phrase naming the
// token), so every part of an answer an error keeps or prints passes through here first. Without recursion
// and with a depth limit (no real error body nests deeper): a hostile body cannot make it fail.

const MAX_DEPTH = 64;

/** A copy of `value` with every occurrence of each secret, in every string and key, replaced. */
export function redact<T>(value: T, secrets: readonly string[]): T {
  const root: Record<string, unknown> = { value };
  // Each entry: the copy holding a value still to scrub, its key there, and its depth.
  const stack: [Record<string, unknown>, string, number][] = [[root, "value", 0]];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    const [into, key, depth] = entry;
    const item = into[key];
    if (typeof item === "string") into[key] = redactText(item, secrets);
    else if (typeof item === "object" && item !== null && depth >= MAX_DEPTH) into[key] = "[nested too deep]";
    else if (typeof item === "object" && item !== null) {
      const copy = (Array.isArray(item) ? [] : {}) as Record<string, unknown>;
      into[key] = copy;
      for (const [name, child] of Object.entries(item)) {
        const safeName = redactText(name, secrets);
        copy[safeName] = child;
        stack.push([copy, safeName, depth + 1]);
      }
    }
  }
  return root.value as T;
}

export function redactText(text: string, secrets: readonly string[]): string {
  return secrets.reduce((result, secret) => result.replaceAll(secret, "[redacted]"), text);
}

/** Whether `text` contains any of the secrets. */
export function containsSecret(text: string, secrets: readonly string[]): boolean {
  return secrets.some((secret) => text.includes(secret));
}
