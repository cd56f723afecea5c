import { createServer, request, type Server } from "node:http";
import { join } from "node:path";
import { getFreePort } from "@finetune-studio/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createRelay, type Routing } from "./fleet/relay.js";
import { tempDir } from "./test/cli-process.js";

// The relay between nginx and one vLLM instance, against real node:http servers standing in for vLLM.

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

function listen(server: Server, where: number | string): Promise<void> {
  servers.push(server);
  return new Promise((resolve) => server.listen(where as number, "127.0.0.1", resolve));
}

async function relayOver(routing: Routing): Promise<string> {
  const socket = join(tempDir("relay-"), "relay-0.sock");
  const relay = createRelay(0, routing, () => {});
  servers.push(relay);
  await new Promise<void>((resolve) => relay.listen(socket, resolve));
  return socket;
}

function post(socket: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: socket, method: "POST", path: "/v1/chat/completions" }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("relay", () => {
  it("tries a refused connection once more on another ready instance, with the same body", async () => {
    const refused = await getFreePort();
    const live = await getFreePort();
    const seen: string[] = [];
    await listen(
      createServer((req, res) => {
        let body = "";
        req.on("data", (chunk) => {
          body += chunk;
        });
        req.on("end", () => {
          seen.push(body);
          res.end("answered");
        });
      }),
      live,
    );
    const routing = { ports: [refused, live], target: [0, 1], inflight: [0, 0], ready: [true, true] };
    const answer = await post(await relayOver(routing), '{"model":"m"}');
    expect(answer).toEqual({ status: 200, text: "answered" });
    expect(seen).toEqual(['{"model":"m"}']);
    expect(routing.inflight).toEqual([0, 0]);
  });

  it("answers 502 when the instance refuses and no other is ready", async () => {
    const refused = await getFreePort();
    const routing = { ports: [refused], target: [0], inflight: [0], ready: [true] };
    const answer = await post(await relayOver(routing), "{}");
    expect(answer.status).toBe(502);
    expect(routing.inflight).toEqual([0]);
  });

  it("passes a stream on as it comes, and cuts the upstream request when the caller goes away", async () => {
    const port = await getFreePort();
    let upstreamClosed: () => void = () => {};
    const closed = new Promise<void>((resolve) => {
      upstreamClosed = resolve;
    });
    await listen(
      createServer((_req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write("data: first\n\n");
        res.once("close", () => upstreamClosed());
      }),
      port,
    );
    const routing = { ports: [port], target: [0], inflight: [0], ready: [true] };
    const socket = await relayOver(routing);
    const first = await new Promise<string>((resolve) => {
      const req = request({ socketPath: socket, method: "POST", path: "/" }, (res) => {
        res.setEncoding("utf8");
        res.once("data", (chunk: string) => {
          resolve(chunk);
          req.destroy();
        });
      });
      req.on("error", () => {});
      req.end("{}");
    });
    expect(first).toBe("data: first\n\n");
    await closed;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(routing.inflight).toEqual([0]);
  });
});
