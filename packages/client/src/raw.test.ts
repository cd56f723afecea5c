// `raw`, the openapi-fetch client each client exposes, goes through the same core as the helpers: the
// client's timeout per attempt, its retries, its byte bound and its redirect refusal. Its answers keep
// openapi-fetch's shape (`data`, or `error` for an error answer). Real node:http servers on 127.0.0.1.
import { afterEach, describe, expect, it } from "vitest";
import { createChatClient } from "./chat.js";
import { StudioApiError, StudioError, StudioTimeoutError } from "./errors.js";
import { createStudioClient } from "./studio.js";
import { type FaultServer, type Handler, reply, startFaultServer } from "./test/fault-server.js";
import { fullTree, ids, modelList } from "./test/fixtures.js";

const TOKEN = "raw-test-token";
const servers: FaultServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(...handlers: Handler[]): Promise<FaultServer> {
  const server = await startFaultServer(handlers);
  servers.push(server);
  return server;
}

const getTree = (server: FaultServer, options: { timeoutMs?: number; maxResponseBytes?: number } = {}) =>
  createStudioClient({ baseUrl: server.url, token: TOKEN, ...options }).raw.GET(
    "/api/v1/public/projects/{projectId}",
    { params: { path: { projectId: ids.project } } },
  );

describe("raw", () => {
  it("retries a 503 with the client's retries, then gives openapi-fetch's data", async () => {
    const server = await serve(
      reply.json(503, { message: "busy" }, { "retry-after-ms": "1" }),
      reply.json(200, fullTree),
    );
    const { data, error } = await getTree(server);
    expect(error).toBeUndefined();
    expect(data).toEqual(fullTree);
    expect(server.received).toHaveLength(2);
    expect(server.received[1]?.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it("gives the last error answer as openapi-fetch's error, once the retries are spent", async () => {
    const server = await serve(reply.json(404, { message: "no such project" }));
    const { data, error, response } = await getTree(server);
    expect(data).toBeUndefined();
    expect(error).toEqual({ message: "no such project" });
    expect(response.status).toBe(404);
    expect(server.received).toHaveLength(1);
  });

  it("times an attempt out with the client's timeout, the body's reading included", async () => {
    const server = await serve(reply.stallBody());
    const failure = await getTree(server, { timeoutMs: 100 }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(StudioTimeoutError);
    // The client's two retries, each timed out as well.
    expect(server.received).toHaveLength(3);
  });

  it("stops reading past maxResponseBytes", async () => {
    const server = await serve(reply.json(200, { project: { name: "x".repeat(4096) } }));
    const failure = await getTree(server, { maxResponseBytes: 1024 }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(StudioError);
    expect((failure as Error).message).toContain("over maxResponseBytes (1024 bytes)");
  });

  it("refuses a redirect, and sends nothing to where it points", async () => {
    const elsewhere = await serve(reply.json(200, fullTree));
    const server = await serve((_, response) => {
      response.writeHead(302, { location: `${elsewhere.url}/api/v1/public/projects/${ids.project}` }).end();
    });
    const failure = await getTree(server).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(StudioApiError);
    expect(failure).toMatchObject({ status: 302 });
    expect(elsewhere.received).toHaveLength(0);
  });

  it("reads a text answer of the chat contract with parseAs", async () => {
    const server = await serve(reply.json(200, modelList));
    const chat = createChatClient({ baseUrl: server.url });
    const { data } = await chat.raw.GET("/v1/models", { parseAs: "text" });
    expect(JSON.parse(data ?? "")).toEqual(modelList);
  });
});
