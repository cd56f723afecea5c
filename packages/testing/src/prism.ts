import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { getFreePort } from "./ports.js";
import { type ManagedProcess, startProcess } from "./process.js";
import { waitForHttp } from "./wait.js";

const require = createRequire(import.meta.url);

/** The bundled contracts shipped by @finetune-studio/types. */
export const contracts = {
  studio: require.resolve("@finetune-studio/types/studio.openapi.json"),
  chat: require.resolve("@finetune-studio/types/chat-completions.openapi.json"),
} as const;

export type ContractName = keyof typeof contracts;

export interface PrismMock {
  readonly url: string;
  readonly port: number;
  readonly process: ManagedProcess;
  stop(): Promise<void>;
}

function prismEntry(): string {
  const manifest = require.resolve("@stoplight/prism-cli/package.json");
  return join(dirname(manifest), "dist", "index.js");
}

/**
 * Starts `prism mock --errors` on a contract (a name or a document path), on loopback and a free port,
 * and resolves once it answers HTTP. `--errors` turns any request that breaks the contract into an error response.
 */
export async function startPrism(
  contract: ContractName | (string & {}),
  options: { port?: number; dynamic?: boolean } = {},
): Promise<PrismMock> {
  const document = contract in contracts ? contracts[contract as ContractName] : contract;
  const port = options.port ?? (await getFreePort());
  const args = [prismEntry(), "mock", "--host", "127.0.0.1", "--port", String(port), "--errors"];
  if (options.dynamic) args.push("--dynamic");
  args.push(document);
  const proc = startProcess(process.execPath, args);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(url, { process: proc, timeoutMs: 60_000 });
  } catch (error) {
    await proc.stop();
    throw error;
  }
  return { url, port, process: proc, stop: () => proc.stop() };
}
