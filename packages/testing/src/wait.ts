import type { ManagedProcess } from "./process.js";

/**
 * Polls `url` until it answers with a status accepted by `isReady` (any response by default).
 * Fails early, with the process output, when `process` exits first.
 */
export async function waitForHttp(
  url: string,
  options: { timeoutMs?: number; isReady?: (status: number) => boolean; process?: ManagedProcess } = {},
): Promise<void> {
  const { timeoutMs = 30_000, isReady = () => true, process: proc } = options;
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void proc?.exited.then(() => {
    exited = true;
  });
  let lastProblem = "no attempt made";
  while (Date.now() < deadline) {
    if (exited) throw new Error(`process exited before ${url} was ready:\n${proc?.output() ?? ""}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await response.body?.cancel();
      if (isReady(response.status)) return;
      lastProblem = `status ${response.status}`;
    } catch (error) {
      lastProblem = error instanceof Error ? error.message : String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} not ready after ${timeoutMs} ms (${lastProblem})\n${proc?.output() ?? ""}`);
}

/**
 * Resolves once the process's output contains `expected` (a string or a pattern); rejects with the output
 * when the process exits first or time runs out.
 */
export async function waitForOutput(
  proc: ManagedProcess,
  expected: string | RegExp,
  timeoutMs = 90_000,
): Promise<void> {
  const printed = () =>
    typeof expected === "string" ? proc.output().includes(expected) : expected.test(proc.output());
  let exited = false;
  void proc.exited.then(() => {
    exited = true;
  });
  const deadline = Date.now() + timeoutMs;
  while (!printed()) {
    if (exited) throw new Error(`exited before printing ${expected}:\n${proc.output()}`);
    if (Date.now() > deadline) throw new Error(`no ${expected} after ${timeoutMs} ms:\n${proc.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
