import { fileURLToPath } from "node:url";
import { getFreePort, startProcess, waitForHttp } from "@finetune-studio/testing";

export interface AnsweringServer {
  readonly url: string;
  stop(): Promise<void>;
}

/** Starts answering-server.js in its own process on a free loopback port; resolves once /health answers. */
export function startAnsweringServer(): Promise<AnsweringServer> {
  return startServerProcess(fileURLToPath(new URL("./answering-server.js", import.meta.url)));
}

/** Starts a server script (given its port as argument) in its own process; resolves once /health answers. */
export async function startServerProcess(script: string): Promise<AnsweringServer> {
  const port = await getFreePort();
  const proc = startProcess(process.execPath, [script, String(port)]);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${url}/health`, { process: proc, isReady: (status) => status === 200 });
  } catch (error) {
    await proc.stop();
    throw error;
  }
  return { url, stop: () => proc.stop() };
}
