import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import {
  type ManagedProcess,
  startChatMockProcess,
  startPrism,
  startProcess,
  waitForHttp,
} from "@finetune-studio/testing";

const require = createRequire(import.meta.url);

export interface Child {
  readonly name: string;
  readonly url: string;
  readonly process: ManagedProcess;
}

/** The last lines a child wrote, for the message when it dies. */
export function lastLines(child: Child, count = 15): string {
  const lines = child.process.output().trimEnd().split("\n");
  return lines.slice(-count).join("\n");
}

export async function startStudioMock(port: number): Promise<Child> {
  const mock = await startPrism("studio", { port });
  return { name: "Studio API mock", url: mock.url, process: mock.process };
}

/** Pause between streamed tokens: slow enough to watch a reply arrive, quick enough not to wait on it. */
const chatTokenDelayMs = 40;

/** The streaming stand-in for vLLM (Prism answers a stream in one piece), requests checked by the contract. */
export async function startChatMock(port: number): Promise<Child> {
  const mock = await startChatMockProcess({ port, tokenDelayMs: chatTokenDelayMs });
  return { name: "chat-completions mock", url: mock.url, process: mock.process };
}

/** The docs site, served from the docs app's built dist/ by its own `serve` entry. */
export async function startDocs(port: number): Promise<Child> {
  const docsDir = dirname(require.resolve("@finetune-studio/docs/package.json"));
  const proc = startProcess(
    process.execPath,
    ["--import", "tsx", join(docsDir, "src", "serve.ts"), "--port", String(port)],
    {
      cwd: docsDir,
    },
  );
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${url}/`, { process: proc, timeoutMs: 30_000, isReady: (status) => status === 200 });
  } catch (error) {
    await proc.stop();
    throw error;
  }
  return { name: "docs site", url, process: proc };
}
