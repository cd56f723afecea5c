import { fileURLToPath } from "node:url";
import { getFreePort } from "../ports.js";
import { type ManagedProcess, startProcess } from "../process.js";
import { waitForHttp } from "../wait.js";

export interface ChatMockProcess {
  readonly url: string;
  readonly port: number;
  readonly process: ManagedProcess;
  stop(): Promise<void>;
}

/** Starts the streaming chat mock as a child process in its own group (as the sandbox runs it). */
export async function startChatMockProcess(
  options: { port?: number; tokenDelayMs?: number } = {},
): Promise<ChatMockProcess> {
  const port = options.port ?? (await getFreePort());
  // From dist/ the CLI sits beside this file; from src/ (under vitest) it is the built one.
  const built = import.meta.url.endsWith(".ts") ? "../../dist/cli.js" : "./cli.js";
  const cli = fileURLToPath(new URL(built, import.meta.url));
  const args = [cli, "--port", String(port)];
  if (options.tokenDelayMs !== undefined) args.push("--token-delay-ms", String(options.tokenDelayMs));
  const proc = startProcess(process.execPath, args);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${url}/health`, {
      process: proc,
      timeoutMs: 30_000,
      isReady: (status) => status === 200,
    });
  } catch (error) {
    await proc.stop();
    throw error;
  }
  return { url, port, process: proc, stop: () => proc.stop() };
}
