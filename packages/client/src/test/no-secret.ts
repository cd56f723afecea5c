import { inspect } from "node:util";
import { expect } from "vitest";

/** Fails if `secret` shows in any way an error can be printed: String, stack, JSON, or a deep inspect. */
export function expectSecretNowhere(error: unknown, secret: string): void {
  const views = [
    String(error),
    error instanceof Error ? (error.stack ?? "") : "",
    JSON.stringify(error),
    inspect(error, { depth: Number.POSITIVE_INFINITY, showHidden: true }),
  ];
  for (const view of views) expect(view).not.toContain(secret);
}
