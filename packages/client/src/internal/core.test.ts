// The streaming hook of the core: a call made with `core.stream` resolves with the unread 2xx Response,
// after auth, redirect refusal, a timeout that covers the wait for headers only, and retries before any
// byte of the body. Real node:http servers on 127.0.0.1.
import type { ChatPaths } from "@finetune-studio/types";
import { afterEach, describe, expect, it } from "vitest";
import { StudioApiError, StudioAuthError, StudioTimeoutError } from "../errors.js";
import { type FaultServer, type Handler, reply, startFaultServer } from "../test/fault-server.js";
import { createCore } from "./core.js";

const servers: FaultServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function core(handlers: Handler[], timeoutMs = 5_000) {
  const server = await startFaultServer(handlers);
  servers.push(server);
  const made = createCore<ChatPaths>(
    { baseUrl: server.url, timeoutMs },
    {
      secret: "key-1",
      headers: { Authorization: "Bearer key-1" },
      timeoutMs: 1,
      maxRetries: 2,
    },
  );
  return { server, made };
}

function stream(made: Awaited<ReturnType<typeof core>>["made"], options?: { signal?: AbortSignal }) {
  const body = { model: "m", messages: [{ role: "user" as const, content: "hi" }], stream: true };
  return made.stream({ method: "POST", path: "/v1/chat/completions", body }, options);
}

/** Sends the headers at once, then one event every `everyMs`, `count` times. */
const slowEvents =
  (count: number, everyMs: number): Handler =>
  (_, response) => {
    // Headers go out at once: the timeout under test is the body's, not the wait for the first event.
    response.writeHead(200, { "content-type": "text/event-stream" }).flushHeaders();
    let sent = 0;
    const timer = setInterval(() => {
      response.write(`data: {"n":${++sent}}\n\n`);
      if (sent === count) {
        clearInterval(timer);
        response.end("data: [DONE]\n\n");
      }
    }, everyMs);
    response.on("close", () => clearInterval(timer));
  };

describe("core.stream", () => {
  it("resolves with the unread body, which may outlast the attempt's timeout", async () => {
    // The body takes 3 x 400 ms, three times the attempt's timeout; its headers come at once.
    const { server, made } = await core([slowEvents(3, 400)], 400);
    const response = await stream(made);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const text = await response.text();
    expect(text).toContain('data: {"n":3}');
    expect(text).toContain("[DONE]");
    expect(server.received[0]?.authorization).toBe("Bearer key-1");
  });

  it("retries a 503 that came before any byte of a 2xx body", async () => {
    const { server, made } = await core([
      reply.json(503, { message: "busy" }, { "retry-after-ms": "1" }),
      slowEvents(1, 1),
    ]);
    await expect((await stream(made)).text()).resolves.toContain("[DONE]");
    expect(server.received).toHaveLength(2);
  });

  it("maps a 401 to its error, with the key scrubbed", async () => {
    const { made } = await core([reply.echoAuthorization(401)]);
    const error = await stream(made).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioAuthError);
    expect(JSON.stringify(error)).not.toContain("key-1");
  });

  it("refuses a redirect", async () => {
    const { made } = await core([(_, response) => response.writeHead(307, { location: "/elsewhere" }).end()]);
    await expect(stream(made)).rejects.toMatchObject({ status: 307, constructor: StudioApiError });
  });

  it("times out while waiting for headers", async () => {
    const { made } = await core([reply.hang()], 100);
    await expect(stream(made)).rejects.toBeInstanceOf(StudioTimeoutError);
  });

  it("lets the caller's signal cancel the body after the headers", async () => {
    const { made } = await core([slowEvents(100, 50)]);
    const controller = new AbortController();
    const response = await stream(made, { signal: controller.signal });
    const reading = response.text();
    controller.abort(new Error("user left"));
    await expect(reading).rejects.toThrow("user left");
  });
});
