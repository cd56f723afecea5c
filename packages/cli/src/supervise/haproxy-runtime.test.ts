import { rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "../test/cli-process.js";
import { openRequests, parseStat, runtimeCommand, setServerState } from "./haproxy-runtime.js";

// The runtime API client against a stand-in socket that answers as HAProxy 2.6 does, and as it must not.

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

const STAT = [
  "# pxname,svname,qcur,qmax,scur,smax,slim,stot",
  "studio_serve,FRONTEND,,,3,9,8192,120",
  "vllm,vllm-0,1,2,4,8,1024,60",
  "vllm,vllm-1,0,0,0,3,1024,60",
  "vllm,BACKEND,1,2,4,9,820,120",
  "",
].join("\n");

/** A Unix socket that answers each command with `answer(command)` and closes, as HAProxy's does. */
async function standIn(
  answer: (command: string) => string | undefined,
): Promise<{ socket: string; seen: string[] }> {
  const socket = join(tempDir("haproxy-api-"), "admin.sock");
  const seen: string[] = [];
  const server = createServer((connection) => {
    connection.setEncoding("utf8");
    connection.on("error", () => {});
    connection.once("data", (text: string) => {
      const command = text.trim();
      seen.push(command);
      const reply = answer(command);
      if (reply !== undefined) connection.end(reply);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  return { socket, seen };
}

describe("HAProxy's runtime API", { timeout: 20_000 }, () => {
  it("counts an instance's open requests as its sessions plus its own queue", async () => {
    const { socket } = await standIn(() => STAT);
    // 4 served and 1 in its own queue: a drain waits for all 5.
    expect(await openRequests(socket, 0)).toBe(5);
    expect(await openRequests(socket, 1)).toBe(0);
    await expect(openRequests(socket, 2)).rejects.toThrow(/no server vllm-2/);
  });

  it("drains and readies a server by name; back in service, it is marked healthy at once", async () => {
    const { socket, seen } = await standIn(() => "\n");
    await setServerState(socket, 1, "drain");
    await setServerState(socket, 1, "ready");
    expect(seen).toEqual([
      "set server vllm/vllm-1 state drain",
      "set server vllm/vllm-1 state ready",
      "set server vllm/vllm-1 health up",
    ]);
  });

  it("throws with HAProxy's words when it refuses, and when it answers something that is not a stat table", async () => {
    const { socket } = await standIn(() => "No such server.\n");
    await expect(setServerState(socket, 0, "maint")).rejects.toThrow(
      /HAProxy refused "set server vllm\/vllm-0 state maint": No such server/,
    );
    expect(() => parseStat("Unknown command\n")).toThrow(/did not start with its header/);
  });

  it("bounds the wait and the size of an answer, and names a socket that is gone", async () => {
    const silent = await standIn(() => undefined);
    await expect(runtimeCommand(silent.socket, "show stat")).rejects.toThrow(
      /did not answer "show stat" within 5 s/,
    );
    const flood = await standIn(() => "x".repeat(2 * 1024 * 1024));
    await expect(runtimeCommand(flood.socket, "show stat")).rejects.toThrow(/more than 1048576 bytes/);
    rmSync(flood.socket);
    await expect(runtimeCommand(flood.socket, "show stat")).rejects.toThrow(/is unreachable/);
  });
});
