// Faults from a real HTTP server (node:http on 127.0.0.1), through the real global fetch: rate limits,
// outages, resets, hangs, malformed bodies, error pages, refusals. A canary token is sent on every request
// and searched for in every error (message, stack, JSON, util.inspect) and every log line.
import { inspect } from "node:util";
import { getFreePort } from "@finetune-studio/testing";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createChatClient } from "./chat.js";
import {
  StudioApiError,
  StudioAuthError,
  StudioConnectionError,
  StudioError,
  StudioNotFoundError,
  StudioRateLimitError,
  StudioServerError,
  StudioTimeoutError,
} from "./errors.js";
import type { StudioRequestLog } from "./logger.js";
import { createStudioClient, type StudioClientOptions } from "./studio.js";
import { type FaultServer, type Handler, reply, startFaultServer } from "./test/fault-server.js";
import { fullTree, ids, scoredTrace } from "./test/fixtures.js";
import { expectSecretNowhere } from "./test/no-secret.js";

const CANARY = "canary-tok-5f0c8a2e-do-not-leak";
/** Keeps retries fast where the pause itself is not under test. */
const quick = { "retry-after-ms": "5" };
const html502 = "<!doctype html><html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>";

const servers: FaultServer[] = [];
const logs: StudioRequestLog[] = [];
const consoleOutput: string[] = [];

async function serve(...handlers: Handler[]): Promise<FaultServer> {
  const server = await startFaultServer(handlers);
  servers.push(server);
  return server;
}

function studio(server: FaultServer, extra: Partial<StudioClientOptions> = {}) {
  return createStudioClient({ baseUrl: server.url, token: CANARY, logger: (e) => logs.push(e), ...extra });
}

/** The error a call rejects with, after checking that the canary is nowhere in it. */
async function failureOf(call: Promise<unknown>): Promise<unknown> {
  const error = await call.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (e: unknown) => e,
  );
  expectSecretNowhere(error, CANARY);
  return error;
}

beforeEach(() => {
  for (const method of ["log", "info", "warn", "error", "debug"] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      consoleOutput.push(args.map((arg) => inspect(arg)).join(" "));
    });
  }
});

afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

afterAll(() => {
  expect(logs.length).toBeGreaterThan(0);
  expect(JSON.stringify(logs)).not.toContain(CANARY);
  expect(consoleOutput.join("\n")).not.toContain(CANARY);
});

describe("retries against a real server", () => {
  it("waits as long as Retry-After says after a 429, then succeeds", async () => {
    const server = await serve(
      reply.json(429, { message: "slow down" }, { "retry-after": "1" }),
      reply.json(200, fullTree),
    );
    const entries: StudioRequestLog[] = [];
    const client = studio(server, { logger: (e) => entries.push(e) });
    await expect(client.getProjectTree(ids.project)).resolves.toEqual(fullTree);
    expect(server.received).toHaveLength(2);
    expect(entries[0]).toMatchObject({ status: 429, retryInMs: 1_000 });
    // The canary really was sent, so searching for it below means something.
    expect(server.received[0]?.authorization).toBe(`Bearer ${CANARY}`);
  });

  it("retries a 503 and gets the 200 that follows", async () => {
    const server = await serve(reply.json(503, { message: "unavailable" }), reply.json(200, scoredTrace));
    await expect(studio(server).updateTrace(ids.trace, { score: 0.5 })).resolves.toEqual(scoredTrace);
    expect(server.received.map((r) => r.method)).toEqual(["PUT", "PUT"]);
  });

  it("makes exactly maxRetries + 1 attempts on a persistent 500, then raises", async () => {
    const server = await serve(reply.json(500, { message: "boom" }, quick));
    const error = await failureOf(studio(server, { maxRetries: 3 }).getRecommendations(ids.snapshot));
    expect(error).toBeInstanceOf(StudioServerError);
    expect(error).toMatchObject({ status: 500, body: { message: "boom" } });
    expect(server.received).toHaveLength(4);
  });

  it("retries a connection reset", async () => {
    const server = await serve(reply.reset(), reply.json(200, fullTree));
    await expect(studio(server).getProjectTree(ids.project)).resolves.toEqual(fullTree);
    expect(server.received).toHaveLength(2);
  });

  it("raises a StudioConnectionError when every attempt is reset", async () => {
    const server = await serve(reply.reset());
    const error = await failureOf(studio(server, { maxRetries: 1 }).getProjectTree(ids.project));
    expect(error).toBeInstanceOf(StudioConnectionError);
    expect(server.received).toHaveLength(2);
  });

  it("raises a StudioConnectionError when nothing listens", async () => {
    const port = await getFreePort();
    const client = createStudioClient({ baseUrl: `http://127.0.0.1:${port}`, token: CANARY, maxRetries: 0 });
    const error = await failureOf(client.getProjectTree(ids.project));
    expect(error).toBeInstanceOf(StudioConnectionError);
    expect((error as Error).message).toMatch(/ECONNREFUSED/);
  });
});

describe("timeouts against a real server", () => {
  it("times out a server that never answers", async () => {
    const server = await serve(reply.hang());
    const error = await failureOf(
      studio(server, { timeoutMs: 200, maxRetries: 0 }).getProjectTree(ids.project),
    );
    expect(error).toBeInstanceOf(StudioTimeoutError);
    expect(server.received).toHaveLength(1);
  });

  it("times out a body that stops half way", async () => {
    const server = await serve(reply.stallBody());
    const error = await failureOf(
      studio(server, { timeoutMs: 200, maxRetries: 0 }).getProjectTree(ids.project),
    );
    expect(error).toBeInstanceOf(StudioTimeoutError);
  });

  it("times out a body that stops half way even when its length was announced", async () => {
    const server = await serve((_, response) => {
      response.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
      response.write('{"project": {');
    });
    const error = await failureOf(
      studio(server, { timeoutMs: 200, maxRetries: 0 }).getProjectTree(ids.project),
    );
    expect(error).toBeInstanceOf(StudioTimeoutError);
  });

  it("aborts a hung request at once when the caller's signal fires", async () => {
    const server = await serve(reply.hang());
    const controller = new AbortController();
    const call = studio(server).getProjectTree(ids.project, { signal: controller.signal });
    // Abort once the server holds the request: a fixed 50 ms could fire before it arrived on a busy machine.
    for (let waited = 0; server.received.length === 0 && waited < 5_000; waited += 10) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: "AbortError" });
    expect(server.received).toHaveLength(1);
  });
});

describe("bodies and statuses a client must survive", () => {
  it("raises a StudioError, not a SyntaxError, for malformed JSON in a 200", async () => {
    const server = await serve(reply.text(200, '{"project": {"id": ', "application/json"));
    const error = await failureOf(studio(server).getProjectTree(ids.project));
    expect(error).toBeInstanceOf(StudioError);
    expect(error).not.toBeInstanceOf(SyntaxError);
    expect(server.received).toHaveLength(1);
  });

  it("keeps an HTML 502 page as the body text of a StudioServerError", async () => {
    const server = await serve(reply.text(502, html502, "text/html", quick));
    const error = await failureOf(studio(server, { maxRetries: 1 }).getProjectTree(ids.project));
    expect(error).toBeInstanceOf(StudioServerError);
    expect(error).toMatchObject({ status: 502, body: html502 });
    expect((error as Error).message).toContain("text/html");
    expect(server.received).toHaveLength(2);
  });

  it.each<[number, typeof StudioApiError]>([
    [401, StudioAuthError],
    [403, StudioAuthError],
    [404, StudioNotFoundError],
    [422, StudioApiError],
  ])("raises %i at once, with the request id, and does not retry", async (status, type) => {
    const server = await serve(
      reply.json(status, { message: `status ${status}` }, { "x-request-id": "req-42" }),
    );
    const error = await failureOf(studio(server).updateTrace(ids.trace, { feedback: "ok" }));
    expect(error).toBeInstanceOf(type);
    expect(error).toMatchObject({ status, requestId: "req-42", body: { message: `status ${status}` } });
    expect(server.received).toHaveLength(1);
  });

  it("raises a StudioRateLimitError once retries are spent", async () => {
    const server = await serve(reply.json(429, { message: "slow down" }, quick));
    const error = await failureOf(studio(server, { maxRetries: 1 }).getRecommendations(ids.snapshot));
    expect(error).toBeInstanceOf(StudioRateLimitError);
    expect(server.received).toHaveLength(2);
  });
});

describe("the token never leaks", () => {
  it.each([401, 403, 500])("scrubs a %i answer that echoes the Authorization header", async (status) => {
    const server = await serve(reply.echoAuthorization(status));
    const error = await failureOf(studio(server, { maxRetries: 0 }).getProjectTree(ids.project));
    expect(error).toBeInstanceOf(StudioApiError);
    expect(JSON.stringify((error as StudioApiError).body)).toContain("[redacted]");
    expect(server.received[0]?.authorization).toBe(`Bearer ${CANARY}`);
  });

  it("scrubs an HTML error page that quotes the token", async () => {
    const server = await serve(reply.text(500, `<pre>Authorization: Bearer ${CANARY}</pre>`, "text/html"));
    await failureOf(studio(server, { maxRetries: 0 }).getProjectTree(ids.project));
  });

  it("does not quote a malformed token in the construction error", () => {
    let error: unknown;
    try {
      createStudioClient({ baseUrl: "https://studio.example.net", token: `${CANARY}\r\n` });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StudioError);
    expectSecretNowhere(error, CANARY);
  });

  it("does not quote a token pasted in place of the base URL", () => {
    let error: unknown;
    try {
      createStudioClient({ baseUrl: CANARY, token: CANARY });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StudioError);
    expectSecretNowhere(error, CANARY);
  });

  it("keeps the chat client's api key out of its errors too", async () => {
    const server = await serve(reply.echoAuthorization(401));
    const chat = createChatClient({ baseUrl: server.url, apiKey: CANARY });
    const error = await failureOf(
      chat.complete({ model: "m", messages: [{ role: "user", content: "hi" }], max_tokens: 4 }),
    );
    expect(error).toBeInstanceOf(StudioAuthError);
  });
});

describe("the chat client against a starting server", () => {
  it("waits while nothing listens, then through a 503, until the model is listed", async () => {
    const port = await getFreePort();
    const chat = createChatClient({ baseUrl: `http://127.0.0.1:${port}` });
    const ready = chat.waitUntilReady({ model: "support-lora", timeoutMs: 20_000, intervalMs: 20 });
    // Nothing listens yet: the first probes are refused, as while vLLM loads its weights.
    await new Promise((resolve) => setTimeout(resolve, 100));
    let healthChecks = 0;
    const server = await startFaultServer(
      [
        (request, response) => {
          if (request.url === "/health") {
            healthChecks++;
            response.writeHead(healthChecks === 1 ? 503 : 200).end();
            return;
          }
          reply.json(200, { object: "list", data: [{ id: "support-lora", object: "model" }] })(
            request,
            response,
          );
        },
      ],
      port,
    );
    servers.push(server);
    await expect(ready).resolves.toMatchObject({ data: [{ id: "support-lora" }] });
    expect(server.received.map((r) => r.url)).toEqual(["/health", "/health", "/v1/models"]);
  });
});
