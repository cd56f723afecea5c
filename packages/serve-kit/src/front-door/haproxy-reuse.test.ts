import { Agent, get } from "node:http";
import type { Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FrontOfOne, startFrontOfOne } from "../test/haproxy-front.js";

// Real HAProxy with haproxyConfig's configuration in front of one instance that notes which of its
// connections carried a caller's request (health checks come on connections of their own). Callers that each
// open a connection, send one request and leave are served over the connection HAProxy already holds to the
// instance, as nginx's keep-alive pool would: HAProxy's default (http-reuse safe) opens one per caller.

const CALLERS = 8;

describe("haproxyConfig reuses its connections to the instances", { timeout: 60_000 }, () => {
  const carried = new Set<Socket>();
  let front: FrontOfOne | undefined;
  let frontPort = 0;

  beforeAll(async () => {
    front = await startFrontOfOne((req, res) => {
      if (req.url !== "/health") carried.add(req.socket);
      res.writeHead(200, { "content-type": "application/json" }).end('{"object":"list","data":[]}');
    });
    frontPort = front.port;
  });

  afterAll(() => front?.stop());

  it("serves callers that each send one request over the connection it holds, not one each", async () => {
    carried.clear();
    for (let caller = 0; caller < CALLERS; caller++) {
      // A caller of its own: a new connection to HAProxy, closed after its one request.
      const agent = new Agent({ keepAlive: false });
      const status = await new Promise<number | undefined>((resolve, reject) => {
        get({ host: "127.0.0.1", port: frontPort, path: "/v1/models", agent }, (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode));
        }).on("error", reject);
      });
      agent.destroy();
      expect(status).toBe(200);
    }
    // One connection (a second at most, should a thread of HAProxy's not take over the other's idle one).
    expect(carried.size).toBeLessThanOrEqual(2);
  });
});
