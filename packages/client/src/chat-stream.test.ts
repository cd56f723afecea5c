// `chat.stream` end to end: the client's request core opens the stream (key, no redirects, error mapping),
// ChatCompletionStream reads it. Against the streaming chat mock, which checks every request against the
// contract, and a node:http server for the answers a mock does not give.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type ChatMock, startChatMock } from "@finetune-studio/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChatClient } from "./chat.js";
import {
  StudioApiError,
  StudioAuthError,
  StudioStreamError,
  StudioTimeoutError,
  StudioValidationError,
} from "./errors.js";
import { chatRequest } from "./test/fixtures.js";

const apiKey = "stream-test-key-5d1f";
let mock: ChatMock;
let failing: ChatMock;
beforeAll(async () => {
  [mock, failing] = await Promise.all([
    startChatMock({ apiKey }),
    startChatMock({ failStreamAfterChunks: 2 }),
  ]);
}, 60_000);
afterAll(async () => {
  await Promise.all([mock?.stop(), failing?.stop()]);
});

describe("chat.stream against the streaming mock", () => {
  it("yields the reply token by token, and the same text as complete()", async () => {
    const chat = createChatClient({ baseUrl: mock.url, apiKey });
    const stream = await chat.stream(chatRequest);
    const pieces: string[] = [];
    for await (const piece of stream.textStream()) pieces.push(piece);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join("")).toBe(await chat.text(chatRequest));
    expect(mock.requests.at(-2)).toMatchObject({ stream: true, model: chatRequest.model });
  });

  it("assembles the final completion with usage when asked", async () => {
    const chat = createChatClient({ baseUrl: mock.url, apiKey });
    const stream = await chat.stream({ ...chatRequest, stream_options: { include_usage: true } });
    const completion = await stream.finalCompletion();
    expect(completion.choices[0]?.message.content).toBe(await chat.text(chatRequest));
    expect(completion.usage?.completion_tokens).toBeGreaterThan(0);
  });

  it("maps a refused key to StudioAuthError before any chunk, without the key in the message", async () => {
    const chat = createChatClient({ baseUrl: mock.url, apiKey: "wrong-key-9a7e" });
    const error = await chat.stream(chatRequest).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioAuthError);
    expect(String((error as Error).message)).not.toContain("wrong-key-9a7e");
  });

  it("rejects the iteration with StudioStreamError when the server fails mid-stream", async () => {
    const chat = createChatClient({ baseUrl: failing.url });
    const stream = await chat.stream(chatRequest);
    const read = async () => {
      for await (const _ of stream) {
        // reading until the server's error event
      }
    };
    await expect(read()).rejects.toBeInstanceOf(StudioStreamError);
  });

  it("validates the request before anything is sent", async () => {
    const chat = createChatClient({ baseUrl: mock.url, apiKey });
    const before = mock.requests.length;
    await expect(chat.stream({ ...chatRequest, messages: [] })).rejects.toBeInstanceOf(StudioValidationError);
    expect(mock.requests).toHaveLength(before);
  });
});

describe("chat.stream against a plain server", () => {
  let server: Server;
  let baseUrl: string;
  let requests = 0;
  beforeAll(async () => {
    server = createServer((request, response) => {
      requests++;
      if (request.url === "/v1/chat/completions" && request.headers["x-case"] === "400") {
        response.writeHead(400, { "content-type": "application/json" });
        response.end(JSON.stringify({ error: { message: "max_tokens is too large", code: 400 } }));
      } else if (request.headers["x-case"] === "redirect") {
        response.writeHead(307, { location: "http://127.0.0.2:9/v1/chat/completions?token=x" });
        response.end();
      } else {
        // Headers, then silence: the idle timeout must end it.
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.flushHeaders();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const client = (testCase: string) =>
    createChatClient({ baseUrl, headers: { "x-case": testCase }, maxRetries: 3 });

  it("maps an error status to StudioApiError with the server's message, sent once", async () => {
    const before = requests;
    const error = await client("400")
      .stream(chatRequest)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioApiError);
    expect((error as StudioApiError).status).toBe(400);
    expect((error as Error).message).toContain("max_tokens is too large");
    expect(requests - before).toBe(1);
  });

  it("refuses a redirect instead of following it", async () => {
    const error = await client("redirect")
      .stream(chatRequest)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioApiError);
    expect((error as Error).message).not.toContain("token=x");
  });

  it("times out when no chunk comes", async () => {
    const stream = await client("silent").stream(chatRequest, { timeoutMs: 300 });
    await expect(stream.finalCompletion()).rejects.toBeInstanceOf(StudioTimeoutError);
  });
});

describe("runtime LoRA adapters against the streaming mock", () => {
  it("loads an adapter, lists it, refuses a second load, unloads it and refuses an unknown one", async () => {
    const chat = createChatClient({ baseUrl: mock.url, apiKey });
    const loaded = await chat.loadLoraAdapter({ lora_name: "billing", lora_path: "/adapters/billing" });
    expect(loaded).toContain("billing");
    expect(mock.adapters.get("billing")).toBe("/adapters/billing");
    expect((await chat.listModels()).data.map((model) => model.id)).toContain("billing");
    const again = await chat
      .loadLoraAdapter({ lora_name: "billing", lora_path: "/adapters/billing" })
      .catch((e: unknown) => e);
    expect(again).toBeInstanceOf(StudioApiError);
    expect((again as StudioApiError).status).toBe(400);
    await expect(chat.unloadLoraAdapter({ lora_name: "billing" })).resolves.toContain("billing");
    expect(mock.adapters.has("billing")).toBe(false);
    const unknown = await chat.unloadLoraAdapter({ lora_name: "billing" }).catch((e: unknown) => e);
    expect((unknown as StudioApiError).status).toBe(404);
  });

  it("refuses an adapter without its path before anything is sent", async () => {
    const chat = createChatClient({ baseUrl: mock.url, apiKey });
    const error = await chat.loadLoraAdapter({ lora_name: "x" } as never).catch((e: unknown) => e);
    expect(error).toMatchObject({ field: "adapter.lora_path" });
  });
});
