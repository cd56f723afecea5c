import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { probeInstance } from "./status-probe.js";

// One look at an instance, against real HTTP servers on 127.0.0.1 that answer each route as a case needs.

const servers: Server[] = [];
const PAGE = 'vllm:num_requests_running{model_name="m"} 1\n';

afterAll(async () => {
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

type Routes = Record<string, RequestListener>;
const ok: RequestListener = (_request, response) => response.writeHead(200).end();
const answer =
  (status: number, body = "", headers: Record<string, string> = {}): RequestListener =>
  (_request, response) =>
    response.writeHead(status, headers).end(body);
const modelList = answer(200, JSON.stringify({ data: [{ id: "m", parent: null }] }), {
  "content-type": "application/json",
});
const vllm: Routes = { "/health": ok, "/v1/models": modelList, "/metrics": answer(200, PAGE) };

/** A vLLM answered in-process (no connection is made), recording the Authorization header of each request. */
function keyRecordingVllm() {
  const seen: (string | null)[] = [];
  const fetch = async (request: Request) => {
    seen.push(request.headers.get("authorization"));
    const { pathname } = new URL(request.url);
    if (pathname === "/v1/models") return Response.json({ data: [{ id: "m", parent: null }] });
    return new Response(pathname === "/metrics" ? PAGE : "");
  };
  return { seen, fetch };
}

/** A server on 127.0.0.1 with `routes` (404 elsewhere); `seen` records each request's path and key. */
async function serve(routes: Routes) {
  const seen: { path: string; authorization: string | undefined }[] = [];
  const server = createServer((request, response) => {
    seen.push({ path: request.url ?? "", authorization: request.headers.authorization });
    (routes[request.url ?? ""] ?? answer(404))(request, response);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const probe = async (routes: Routes, apiKey?: string) => {
  const { url, seen } = await serve(routes);
  return { ...(await probeInstance(url, { timeoutMs: 5_000, apiKey })).status, seen };
};

describe("probeInstance", () => {
  it("reads a vLLM instance: up, its models and its metrics, the key on /v1/models only", async () => {
    const status = await probe(vllm, "sk-local");
    expect(status).toMatchObject({ state: "up", detail: null, models: [{ id: "m", parent: null }] });
    expect(status.metrics).toMatchObject({ readable: true, requestsRunning: 1 });
    expect(status.seen).toEqual([
      { path: "/health", authorization: undefined },
      { path: "/v1/models", authorization: "Bearer sk-local" },
      { path: "/metrics", authorization: undefined },
      { path: "/metrics", authorization: undefined },
    ]);
  });

  it.each<[string, Routes, Partial<{ state: string; detail: string }>]>([
    [
      "a redirect of /health",
      { ...vllm, "/health": answer(302, "", { location: "http://example.com/" }) },
      { state: "garbage", detail: "/health answered 302: this is not a vLLM server" },
    ],
    [
      "no /health",
      { ...vllm, "/health": answer(404) },
      { state: "garbage", detail: "/health answered 404: this is not a vLLM server" },
    ],
    [
      "a dead engine",
      { ...vllm, "/health": answer(503) },
      { state: "unhealthy", detail: "/health answered 503: the engine is not serving" },
    ],
    [
      "a model list that is an HTML page",
      { ...vllm, "/v1/models": answer(200, "<html></html>", { "content-type": "text/html" }) },
      { state: "garbage", detail: "/v1/models did not answer a model list" },
    ],
    [
      "a model list over its 1 MiB bound",
      { ...vllm, "/v1/models": answer(200, `{"data":["${"x".repeat(1024 * 1024)}"]}`) },
      { state: "garbage", detail: "/v1/models did not answer a model list" },
    ],
    [
      "a model without an id",
      { ...vllm, "/v1/models": answer(200, '{"data":[{"parent":null}]}') },
      { state: "garbage", detail: "/v1/models did not answer a model list" },
    ],
    [
      "a key refused on /v1/models",
      { ...vllm, "/v1/models": answer(401, '{"error":"Unauthorized"}') },
      { state: "up", detail: "/v1/models answered 401: give the server's key with --api-key-env NAME" },
    ],
    [
      "a redirect of /v1/models",
      { ...vllm, "/v1/models": answer(307, "", { location: "http://example.com/" }) },
      { state: "up", detail: "/v1/models answered 307" },
    ],
    ["no /metrics", { ...vllm, "/metrics": answer(404) }, { state: "up", detail: "/metrics answered 404" }],
    [
      "a connection closed before any answer",
      { ...vllm, "/health": (request) => request.socket.destroy() },
      { state: "unreachable" },
    ],
  ])("%s", async (_name, routes, want) => {
    const status = await probe(routes);
    expect(status).toMatchObject(want);
    if (want.state !== "up") expect(status.metrics).toBeNull();
  });

  it("shows no numbers of a /metrics page over its 8 MiB bound", async () => {
    const status = await probe({ ...vllm, "/metrics": answer(200, "#".repeat(9 * 1024 * 1024)) });
    expect(status.metrics).toBeNull();
    expect(status.detail).toMatch(/\/metrics/);
  });

  it("reports a port nothing listens on as refused", async () => {
    const { url } = await serve(vllm);
    servers.pop()?.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const { status } = await probeInstance(url, { timeoutMs: 5_000 });
    expect(status).toMatchObject({
      state: "refused",
      detail: "refusing connections: vLLM is stopped, or still loading its weights",
    });
  });

  it("ends every read at the look's deadline", async () => {
    const { url } = await serve({ ...vllm, "/v1/models": () => undefined });
    const started = Date.now();
    const { status } = await probeInstance(url, { timeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(status).toMatchObject({
      state: "up",
      detail: "/v1/models: no answer within 0.3 s; /metrics: no answer within 0.3 s",
    });
  });

  it("sends no key over plain http to another machine, and says so", async () => {
    const { seen, fetch } = keyRecordingVllm();
    const { status } = await probeInstance("http://10.1.2.3:8000", {
      timeoutMs: 5_000,
      apiKey: "sk-x",
      fetch,
    });
    expect(status).toMatchObject({
      state: "up",
      detail: "the API key was not sent: plain http to another machine would expose it",
    });
    expect(seen).toEqual([null, null, null, null]);
  });

  it("sends the key over plain http to this machine's unspecified address, as the client allows", async () => {
    const { seen, fetch } = keyRecordingVllm();
    const { status } = await probeInstance("http://0.0.0.0:8000", {
      timeoutMs: 5_000,
      apiKey: "sk-x",
      fetch,
    });
    expect(status).toMatchObject({ state: "up", detail: null });
    expect(seen).toEqual([null, "Bearer sk-x", null, null]);
  });

  it("shows no metrics when back-to-back /metrics reads come from two processes (a balancer)", async () => {
    let reads = 0;
    const balanced: Routes = {
      ...vllm,
      "/metrics": (_request, response) => {
        reads += 1;
        response.end(`process_start_time_seconds ${reads % 2 === 0 ? "1.7e9" : "1.7000001e9"}\n${PAGE}`);
      },
    };
    const status = await probe(balanced);
    expect(status).toMatchObject({ state: "mixed", metrics: null });
    expect(status.detail).toMatch(/^\/metrics answered from 2 processes \(started .*\): a balancer/);
    const same = await probe({
      ...vllm,
      "/metrics": answer(200, `process_start_time_seconds 1.7e9\n${PAGE}`),
    });
    expect(same).toMatchObject({ state: "up", detail: null });
  });
});
