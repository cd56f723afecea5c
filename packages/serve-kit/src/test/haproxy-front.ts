import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  getFreePort,
  type ManagedProcess,
  requireSystemTool,
  startProcess,
  waitForHttp,
} from "@finetune-studio/testing";
import { haproxyConfig } from "../index.js";

export interface FrontOfOne {
  /** The port HAProxy listens on, on 127.0.0.1. */
  readonly port: number;
  /** Stops HAProxy and the instance and removes the configuration's folder. */
  stop(): Promise<void>;
}

/**
 * One instance (`handler` on a loopback port; it answers `/health` too) behind Debian's HAProxy running
 * haproxyConfig's configuration, once HAProxy's health check and a request through it pass.
 */
export async function startFrontOfOne(handler: RequestListener): Promise<FrontOfOne> {
  const dir = mkdtempSync(join(tmpdir(), "haproxy-front-"));
  const instance = createServer(handler);
  let haproxy: ManagedProcess | undefined;
  const stop = async () => {
    await haproxy?.stop();
    instance.closeAllConnections();
    await new Promise((resolve) => instance.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await new Promise<void>((resolve) => instance.listen(0, "127.0.0.1", resolve));
    const instancePort = (instance.address() as AddressInfo).port;
    const port = await getFreePort();
    const file = join(dir, "haproxy.cfg");
    writeFileSync(file, haproxyConfig({ servers: [`127.0.0.1:${instancePort}`], listen: port }));
    haproxy = startProcess(requireSystemTool("haproxy"), ["-db", "-f", file]);
    await waitForHttp(`http://127.0.0.1:${port}/health`, { process: haproxy, timeoutMs: 30_000 });
    return { port, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
