import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FrontOfOne, startFrontOfOne } from "../test/haproxy-front.js";
import { VLLM_CONTROL_PATHS } from "./haproxy-guard.js";

// Real HAProxy with haproxyConfig's configuration in front of an instance that answers every path with
// "instance <path>": a path the front door lets through reaches it, a control path gets HAProxy's 403.
// Requests go out with node:http, which sends the path as written (fetch would resolve dots first).

let front: FrontOfOne | undefined;
beforeAll(async () => {
  front = await startFrontOfOne((req, res) => {
    req.resume();
    res.end(`instance ${req.url}`);
  });
});
afterAll(async () => {
  await front?.stop();
});

function send(method: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: front?.port, method, path }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (text: string) => {
        body += text;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end(method === "POST" ? "{}" : undefined);
  });
}

describe("the front door refuses vLLM's control endpoints", { timeout: 60_000 }, () => {
  it.each(VLLM_CONTROL_PATHS.map((path) => [path]))("%s", async (path) => {
    for (const method of ["POST", "GET"]) {
      const answer = await send(method, path);
      expect(answer.status, `${method} ${path}`).toBe(403);
      expect(answer.body).not.toMatch(/instance/);
    }
  });

  // What uvicorn and Starlette would route to /sleep or /wake_up (one percent-decoding, a trailing slash
  // redirected), and spellings they would not but no caller needs (repeated slashes, dot segments).
  it.each([
    "/sleep?level=1",
    "/wake_up?tags=weights",
    "/%73leep",
    "/%2Fsleep",
    "/%2fsleep",
    "//sleep",
    "/sleep/",
    "/sleep//",
    "/sleep.",
    "/sleep/.",
    "/v1/../sleep",
    "/./sleep",
    "/v1/%2E%2E/collective_rpc",
    "/collective_rpc/extra",
    "/reset_prefix_cache%2F",
  ])("%s", async (path) => {
    const answer = await send("POST", path);
    expect(answer.status).toBe(403);
    expect(answer.body).not.toMatch(/instance/);
  });

  it.each([
    "/v1/chat/completions",
    "/v1/completions",
    "/v1/models",
    "/health",
    "/metrics",
    "/v1/load_lora_adapter",
    "/sleepy",
    "/v1/sleep_notes",
    "/.well-known/x",
    // Starlette matches case exactly: vLLM answers these 404 itself.
    "/SLEEP",
    "/Wake_Up",
  ])("lets %s through", async (path) => {
    const answer = await send("POST", path);
    expect(answer).toEqual({ status: 200, body: `instance ${path}` });
  });
});
