import { request, type ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FrontOfOne, startFrontOfOne } from "../test/haproxy-front.js";

// Real HAProxy with haproxyConfig's configuration in front of a server that streams server-sent events one
// at a time: it sends the next event only once the client has read the one before. HAProxy 2.6 sends a
// response it has not finished with MSG_MORE unless `option http-no-delay` is set, and the kernel then holds
// the bytes for up to 200 ms waiting for more: each event would arrive about 200 ms after it was sent.

const EVENTS = 10;
/**
 * Under the kernel's 200 ms hold, which each event would wait out, and far over loopback's delivery even
 * while the other packages' tests load both cores (a turn of this process's event loop is in every figure).
 */
const MEDIAN_DELIVERY_LIMIT_MS = 150;

describe("haproxyConfig streams each chunk when the instance sends it", { timeout: 60_000 }, () => {
  let front: FrontOfOne | undefined;
  let frontPort = 0;
  // The open stream's response and when each event left the instance.
  let stream: ServerResponse | undefined;
  const sentAt: number[] = [];

  const sendEvent = (index: number) => {
    sentAt[index] = performance.now();
    stream?.write(`data: {"index":${index}}\n\n`);
  };

  beforeAll(async () => {
    front = await startFrontOfOne((req, res) => {
      if (req.url === "/health") {
        res.end("ok");
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      stream = res;
      sendEvent(0);
    });
    frontPort = front.port;
  });

  afterAll(() => front?.stop());

  it("delivers every event of a paced stream at once, not after the kernel's 200 ms hold", async () => {
    const delivery: number[] = [];
    await new Promise<void>((resolve, reject) => {
      const req = request(
        { host: "127.0.0.1", port: frontPort, path: "/v1/chat/completions", method: "POST" },
        (res) => {
          let buffered = "";
          res.setEncoding("utf8");
          res.on("data", (text: string) => {
            buffered += text;
            let end = buffered.indexOf("\n\n");
            while (end !== -1) {
              const index = (JSON.parse(buffered.slice(6, end)) as { index: number }).index;
              delivery.push(performance.now() - (sentAt[index] ?? Number.NaN));
              buffered = buffered.slice(end + 2);
              end = buffered.indexOf("\n\n");
              if (index + 1 < EVENTS) sendEvent(index + 1);
              else stream?.end();
            }
          });
          res.on("end", resolve);
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end('{"stream":true}');
    });
    expect(delivery).toHaveLength(EVENTS);
    const median = [...delivery].sort((a, b) => a - b)[Math.floor(EVENTS / 2)] ?? Number.NaN;
    expect(median).toBeLessThan(MEDIAN_DELIVERY_LIMIT_MS);
  });
});
