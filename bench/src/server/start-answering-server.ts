import { fileURLToPath } from "node:url";
import { getFreePort, startProcess, waitForHttp } from "@finetune-studio/testing";

export interface AnsweringServer {
  readonly url: string;
  stop(): Promise<void>;
}

/** Starts answering-server.js in its own process on a free loopback port; resolves once /health answers. */
export async function startAnsweringServer(): Promise<AnsweringServer> {
  const port = await getFreePort();
  const script = fileURLToPath(new URL("./answering-server.js", import.meta.url));
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
