import { describe, expect, it } from "vitest";
import { createChatClient } from "./chat.js";
import {
  StudioAuthError,
  StudioError,
  StudioNotFoundError,
  StudioServerError,
  StudioTimeoutError,
  StudioValidationError,
} from "./errors.js";
import { connectionReset, fakeFetch, hangingFetch, json, routeFetch } from "./test/fake-fetch.js";
import { reply, startFaultServer } from "./test/fault-server.js";
import { chatRequest, completion, modelList } from "./test/fixtures.js";

const baseUrl = "http://127.0.0.1:8000";

describe("createChatClient options", () => {
  // What `launch` prints and OpenAI SDK users write names the same server as its root URL.
  it.each([
    ["", "/v1/models"],
    ["/", "/v1/models"],
    ["/v1", "/v1/models"],
    ["/v1/", "/v1/models"],
    ["/vllm/v1", "/vllm/v1/models"],
  ])("reads the baseUrl <server>%s as the server it names", async (suffix, path) => {
    const server = await startFaultServer([reply.json(200, modelList)]);
    try {
      const chat = createChatClient({ baseUrl: `${server.url}${suffix}` });
      await expect(chat.listModels()).resolves.toEqual(modelList);
      expect(server.received.map((request) => request.url)).toEqual([path]);
    } finally {
      await server.close();
    }
  });

  it.each<[string, { given: Record<string, unknown>; field: string }]>([
    ["no baseUrl", { given: {}, field: "baseUrl" }],
    ["a baseUrl that is not a URL", { given: { baseUrl: "not a url" }, field: "baseUrl" }],
    ["an ftp baseUrl", { given: { baseUrl: "ftp://127.0.0.1" }, field: "baseUrl" }],
    ["an empty apiKey", { given: { baseUrl, apiKey: "" }, field: "apiKey" }],
    [
      "an apiKey over http to another host",
      { given: { baseUrl: "http://gpu-box.internal:8000", apiKey: "k" }, field: "baseUrl" },
    ],
    ["a negative timeout", { given: { baseUrl, timeoutMs: -1 }, field: "timeoutMs" }],
  ])("refuses %s", (_, { given, field }) => {
    const attempt = () => createChatClient(given as never);
    expect(attempt).toThrow(StudioValidationError);
    expect(attempt).toThrow(expect.objectContaining({ field }));
  });

  it.each([
    ["http to another host without a key", { baseUrl: "http://gpu-box.internal:8000" }],
    [
      "http to another host with a key, when allowed",
      { baseUrl: "http://gpu-box:8000", apiKey: "k", allowInsecureHttp: true },
    ],
    ["a key over http to localhost", { baseUrl: "http://localhost:8000", apiKey: "k" }],
    ["a key over https", { baseUrl: "https://gpu-box.example.net/", apiKey: "k" }],
  ])("accepts %s", (_, given) => {
    expect(() => createChatClient(given)).not.toThrow();
  });
});

describe("complete and text", () => {
  it("posts the request unchanged to <baseUrl>/v1/chat/completions, with no Authorization when no key", async () => {
    const fetch = fakeFetch(json(completion));
    const chat = createChatClient({ baseUrl: `${baseUrl}/`, fetch });
    await expect(chat.complete({ ...chatRequest, temperature: 0.2, top_p: 0.9 })).resolves.toEqual(
      completion,
    );
    const [request] = fetch.requests;
    expect(request?.method).toBe("POST");
    expect(request?.url).toBe(`${baseUrl}/v1/chat/completions`);
    expect(request?.headers.get("content-type")).toBe("application/json");
    expect(request?.headers.has("authorization")).toBe(false);
    expect(JSON.parse(fetch.bodies[0] ?? "")).toEqual({ ...chatRequest, temperature: 0.2, top_p: 0.9 });
  });

  it("sends the apiKey as a bearer token on /v1 routes only", async () => {
    const fetch = fakeFetch(new Response(null, { status: 200 }), json(modelList));
    const chat = createChatClient({ baseUrl, apiKey: "dummy", fetch, timeoutMs: 1_000 });
    await chat.waitUntilReady();
    expect(fetch.requests.map((r) => [new URL(r.url).pathname, r.headers.get("authorization")])).toEqual([
      ["/health", null],
      ["/v1/models", "Bearer dummy"],
    ]);
  });

  it("text returns choices[0].message.content", async () => {
    const chat = createChatClient({ baseUrl, fetch: fakeFetch(json(completion)) });
    await expect(chat.text(chatRequest)).resolves.toBe("Open Settings.");
  });

  it("text refuses a completion without text", async () => {
    const empty = { ...completion, choices: [{ index: 0, message: { role: "assistant", content: null } }] };
    const chat = createChatClient({ baseUrl, fetch: fakeFetch(json(empty)) });
    await expect(chat.text(chatRequest)).rejects.toThrow(/choices\[0\]\.message\.content \(null/);
  });

  it.each<[string, { given: unknown; field: string }]>([
    ["not an object", { given: "hi", field: "request" }],
    ["no model", { given: { ...chatRequest, model: undefined }, field: "model" }],
    ["an empty model", { given: { ...chatRequest, model: "" }, field: "model" }],
    ["no messages", { given: { ...chatRequest, messages: [] }, field: "messages" }],
    [
      "a message that is not an object",
      { given: { ...chatRequest, messages: ["hi"] }, field: "messages[0]" },
    ],
    [
      "a message without role",
      { given: { ...chatRequest, messages: [{ content: "x" }] }, field: "messages[0].role" },
    ],
    ["max_tokens 0", { given: { ...chatRequest, max_tokens: 0 }, field: "max_tokens" }],
    ["fractional max_tokens", { given: { ...chatRequest, max_tokens: 1.5 }, field: "max_tokens" }],
    ["a negative temperature", { given: { ...chatRequest, temperature: -0.1 }, field: "temperature" }],
    ["a NaN temperature", { given: { ...chatRequest, temperature: Number.NaN }, field: "temperature" }],
    ["stream: true", { given: { ...chatRequest, stream: true }, field: "stream" }],
    // Every field with a limit in the contract is checked, by the same generated limits.
    ["top_p 0 (exclusive minimum)", { given: { ...chatRequest, top_p: 0 }, field: "top_p" }],
    ["n 0", { given: { ...chatRequest, n: 0 }, field: "n" }],
    ["a fractional n", { given: { ...chatRequest, n: 2.5 }, field: "n" }],
    ["presence_penalty 3", { given: { ...chatRequest, presence_penalty: 3 }, field: "presence_penalty" }],
    ["a cache_salt with a slash", { given: { ...chatRequest, cache_salt: "a/b" }, field: "cache_salt" }],
    ["an empty tools list", { given: { ...chatRequest, tools: [] }, field: "tools" }],
  ])("refuses a request with %s before sending it", async (_, { given, field }) => {
    const fetch = fakeFetch(json(completion));
    const chat = createChatClient({ baseUrl, fetch });
    const error = await chat.complete(given as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioValidationError);
    expect(error).toMatchObject({ field });
    expect(fetch.requests).toHaveLength(0);
  });

  it("sends null for an optional field, as the contract allows, and values at the limits", async () => {
    const fetch = fakeFetch(json(completion));
    const chat = createChatClient({ baseUrl, fetch });
    const request = { ...chatRequest, max_tokens: null, temperature: null, top_p: 1, n: 1, cache_salt: "s" };
    await chat.complete(request as never);
    expect(JSON.parse(fetch.bodies[0] ?? "")).toMatchObject(request);
  });

  it("raises a StudioNotFoundError carrying the server's message for an unknown model, and does not retry", async () => {
    const body = { error: { message: "The model `nope` does not exist.", type: "NotFoundError", code: 404 } };
    const fetch = fakeFetch(json(body, { status: 404 }));
    const chat = createChatClient({ baseUrl, fetch });
    const error = await chat.complete({ ...chatRequest, model: "nope" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioNotFoundError);
    expect(error).toMatchObject({
      status: 404,
      body,
      serverMessage: "The model `nope` does not exist.",
      message: expect.stringContaining("`nope` does not exist"),
    });
    expect(fetch.requests).toHaveLength(1);
  });

  it.each([
    [{ message: "flat" }, "flat"],
    [{ error: "a string error" }, "a string error"],
    [{ detail: "FastAPI's detail" }, "FastAPI's detail"],
    [{ detail: [{ msg: "a validation list" }] }, undefined],
    ["plain text", undefined],
  ])("keeps the server's message of an error body %j as serverMessage", async (body, serverMessage) => {
    const answer =
      typeof body === "string" ? new Response(body, { status: 400 }) : json(body, { status: 400 });
    const chat = createChatClient({ baseUrl, fetch: fakeFetch(answer) });
    const error = await chat.listModels().catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, serverMessage });
  });

  it("does not retry a completion on a 5xx by default (a generation costs GPU time)", async () => {
    const fetch = fakeFetch(json({ error: { message: "The engine has stopped." } }, { status: 500 }));
    const chat = createChatClient({ baseUrl, fetch });
    await expect(chat.complete(chatRequest)).rejects.toBeInstanceOf(StudioServerError);
    expect(fetch.requests).toHaveLength(1);
  });

  it("times out a hung completion", async () => {
    const chat = createChatClient({ baseUrl, fetch: hangingFetch() });
    await expect(chat.complete(chatRequest, { timeoutMs: 20 })).rejects.toBeInstanceOf(StudioTimeoutError);
  });
});

describe("health", () => {
  it.each<[string, Response | Error, boolean]>([
    ["200", new Response(null, { status: 200 }), true],
    ["503", new Response(null, { status: 503 }), false],
    ["a refused connection", connectionReset(), false],
  ])("answers %s with %s", async (_, step, want) => {
    const chat = createChatClient({ baseUrl, fetch: fakeFetch(step) });
    await expect(chat.health()).resolves.toBe(want);
  });

  it("rejects on 404: the server is not a vLLM server, waiting will not help", async () => {
    const chat = createChatClient({ baseUrl, fetch: fakeFetch(new Response("Not Found", { status: 404 })) });
    await expect(chat.health()).rejects.toBeInstanceOf(StudioNotFoundError);
  });
});

describe("waitUntilReady", () => {
  it("waits through refused connections, 503 and an incomplete model list until the model is listed", async () => {
    const onlyBase = { object: "list", data: [modelList.data[0]] };
    const fetch = fakeFetch(
      connectionReset(),
      new Response(null, { status: 503 }),
      new Response(null, { status: 200 }),
      json(onlyBase),
      new Response(null, { status: 200 }),
      json(modelList),
    );
    const chat = createChatClient({ baseUrl, fetch });
    await expect(chat.waitUntilReady({ model: "support-lora", intervalMs: 1 })).resolves.toEqual(modelList);
    expect(fetch.requests.map((r) => new URL(r.url).pathname)).toEqual([
      "/health",
      "/health",
      "/health",
      "/v1/models",
      "/health",
      "/v1/models",
    ]);
  });

  it("gives up with a StudioTimeoutError that says what it last saw", async () => {
    const fetch = routeFetch({
      "/health": [new Response(null, { status: 200 })],
      "/v1/models": [json(modelList)],
    });
    const chat = createChatClient({ baseUrl, fetch });
    const error = await chat
      .waitUntilReady({ model: "other", timeoutMs: 50, intervalMs: 5 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioTimeoutError);
    expect(error).toMatchObject({ timeoutMs: 50 });
    expect((error as Error).message).toMatch(
      /does not list "other" \(it lists "meta-llama.*", "support-lora"\)/,
    );
  });

  it("stops at once when its signal aborts, with the signal's reason", async () => {
    const controller = new AbortController();
    const chat = createChatClient({ baseUrl, fetch: fakeFetch(connectionReset()) });
    const waiting = chat.waitUntilReady({ signal: controller.signal, intervalMs: 60_000 });
    setTimeout(() => controller.abort(new Error("launcher stopped")), 10);
    await expect(waiting).rejects.toThrow("launcher stopped");
  });

  it("fails at once on 401 from /v1/models: the key is missing, waiting will not help", async () => {
    const fetch = fakeFetch(
      new Response(null, { status: 200 }),
      json({ error: { message: "Unauthorized" } }, { status: 401 }),
    );
    const chat = createChatClient({ baseUrl, fetch });
    await expect(chat.waitUntilReady({ timeoutMs: 60_000 })).rejects.toBeInstanceOf(StudioAuthError);
    expect(fetch.requests).toHaveLength(2);
  });

  it("fails at once on a malformed model list", async () => {
    const fetch = fakeFetch(new Response(null, { status: 200 }), new Response("<html>", { status: 200 }));
    const chat = createChatClient({ baseUrl, fetch });
    const error = await chat.waitUntilReady({ timeoutMs: 60_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioError);
    expect((error as Error).message).toMatch(/not valid JSON/);
  });
});
