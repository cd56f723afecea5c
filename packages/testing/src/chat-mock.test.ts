// The streaming chat mock, held to the contract: every request it accepts and every answer, chunk and
// error it sends validates against the chat-completions schemas; the official `openai` package reads it.

import { fileURLToPath } from "node:url";
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionStreamError } from "@finetune-studio/types";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startChatMockProcess } from "./chat-mock/child.js";
import { chatDocument, chatExample, chatSchema } from "./chat-mock/contract.js";
import { type ChatMock, startChatMock } from "./chat-mock/server.js";
import { startProcess } from "./process.js";
import { requestShapes, streamShapes } from "./test/request-shapes.js";
import { readEventStream } from "./test/sse.js";

const isRequest = chatSchema("ChatCompletionRequest");
const isCompletion = chatSchema("ChatCompletion");
const isChunk = chatSchema("ChatCompletionChunk");
const isStreamError = chatSchema("ChatCompletionStreamError");
const isErrorBody = chatSchema("ChatErrorBody");
const isModelList = chatSchema("ModelList");

const reply = chatExample<ChatCompletion>("ChatCompletionReply");
const replyText = reply.choices[0]?.message.content ?? "";

const post = (mock: ChatMock, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${mock.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

/** The request's answer as parsed events, each chunk checked against the contract. */
async function streamOf(mock: ChatMock, body: unknown) {
  const response = await post(mock, "/v1/chat/completions", body);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const read = await readEventStream(response);
  expect(read.events.at(-1)).toBe("[DONE]");
  const payloads = read.events.slice(0, -1).map((event) => JSON.parse(event) as unknown);
  return { ...read, payloads };
}

function expectChunks(payloads: unknown[]): ChatCompletionChunk[] {
  for (const payload of payloads) expect(isChunk(payload), isChunk.problems.join("\n")).toBe(true);
  return payloads as ChatCompletionChunk[];
}

const textOf = (chunks: ChatCompletionChunk[], index = 0) =>
  chunks
    .flatMap((chunk) => chunk.choices.filter((c) => c.index === index).map((c) => c.delta.content ?? ""))
    .join("");

describe("the streaming chat mock", () => {
  let mock: ChatMock;
  let openai: OpenAI;
  beforeAll(async () => {
    mock = await startChatMock();
    openai = new OpenAI({ baseURL: `${mock.url}/v1`, apiKey: "dummy", maxRetries: 0 });
  });
  afterAll(() => mock.stop());

  describe("answers every request shape with a completion of the contract", () => {
    it.each(requestShapes)("%s", async (_name, request) => {
      const response = await post(mock, "/v1/chat/completions", request);
      const body = await response.json();
      expect(response.status, JSON.stringify(body)).toBe(200);
      expect(isCompletion(body), isCompletion.problems.join("\n")).toBe(true);
      expect(body.choices).toHaveLength(request.n ?? 1);
      expect(isRequest(mock.requests.at(-1))).toBe(true);
    });
  });

  describe("streams every streaming shape as chunks of the contract, then [DONE]", () => {
    it.each(streamShapes)("%s", async (_name, request) => {
      const { payloads } = await streamOf(mock, request);
      const chunks = expectChunks(payloads);
      expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
      const usageChunks = chunks.filter((chunk) => chunk.choices.length === 0);
      expect(usageChunks).toHaveLength(request.stream_options?.include_usage ? 1 : 0);
      for (let index = 0; index < (request.n ?? 1); index += 1) {
        const own = chunks.filter((chunk) => chunk.choices.some((c) => c.index === index));
        expect(own[0]?.choices[0]?.delta.role).toBe("assistant");
        expect(own.at(-1)?.choices[0]?.finish_reason).toMatch(/^(stop|tool_calls)$/);
        if (!request.tools) expect(textOf(chunks, index)).toBe(replyText);
      }
    });
  });

  it("sends the reply one token per chunk, as separate writes", async () => {
    const slow = await startChatMock({ tokenDelayMs: 25 });
    try {
      const { payloads, reads } = await streamOf(slow, {
        messages: [{ role: "user", content: "Hi" }],
        stream: true,
      });
      const pieces = expectChunks(payloads)
        .map((chunk) => chunk.choices[0]?.delta.content)
        .filter(Boolean);
      expect(pieces.join("")).toBe(replyText);
      expect(pieces).toEqual(replyText.match(/\s*\S+/g));
      // With a pause between chunks the client reads them as they come, not in one piece (Prism's one or
      // two reads); half the pieces leaves room for a loaded machine that reads two writes at once.
      expect(reads).toBeGreaterThan(pieces.length / 2);
    } finally {
      await slow.stop();
    }
  });

  it("assembles into the same tool call as the completion", async () => {
    const tools = [{ type: "function" as const, function: { name: "get_order_status" } }];
    const messages = [{ role: "user" as const, content: "Where is A-1042?" }];
    const { payloads } = await streamOf(mock, { messages, tools, stream: true });
    const pieces = expectChunks(payloads).flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    const completion = (await (
      await post(mock, "/v1/chat/completions", { messages, tools })
    ).json()) as ChatCompletion;
    const call = completion.choices[0]?.message.tool_calls?.[0];
    expect(pieces[0]).toMatchObject({
      index: 0,
      id: call?.id,
      type: "function",
      function: { name: "get_order_status" },
    });
    expect(pieces.map((piece) => piece.function?.arguments ?? "").join("")).toBe(call?.function.arguments);
  });

  it("is read by the official openai package, delta for delta and with its usage", async () => {
    const raw = expectChunks((await streamOf(mock, chatExample("ChatRequestStream"))).payloads);
    const stream = await openai.chat.completions.create(
      chatExample<OpenAI.ChatCompletionCreateParamsStreaming>("ChatRequestStream"),
    );
    const seen: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) seen.push(chunk);
    expect(seen.map((chunk) => chunk.choices[0]?.delta.content ?? null)).toEqual(
      raw.map((chunk) => chunk.choices[0]?.delta.content ?? null),
    );
    expect(seen.at(-1)?.usage).toEqual(reply.usage && { ...raw.at(-1)?.usage });
  });

  it("sends vLLM's error event after the 200 when the stream fails, and openai throws it", async () => {
    const failing = await startChatMock({ failStreamAfterChunks: 3 });
    try {
      const request = { messages: [{ role: "user", content: "Hi" }], stream: true };
      const { payloads } = await streamOf(failing, request);
      const error = payloads.at(-1);
      expect(isStreamError(error), isStreamError.problems.join("\n")).toBe(true);
      expect(error).toEqual(chatExample<ChatCompletionStreamError>("ChatCompletionStreamError"));
      expect(textOf(expectChunks(payloads.slice(0, -1)))).toBe(
        replyText
          .match(/\s*\S+/g)
          ?.slice(0, 3)
          .join(""),
      );
      const client = new OpenAI({ baseURL: `${failing.url}/v1`, apiKey: "dummy", maxRetries: 0 });
      const stream = await client.chat.completions.create({
        ...request,
        model: "support-lora",
      } as OpenAI.ChatCompletionCreateParamsStreaming);
      const consume = async () => {
        for await (const _chunk of stream);
      };
      await expect(consume()).rejects.toThrow("The engine has stopped.");
    } finally {
      await failing.stop();
    }
  });

  it("stops a stream the client abandons, and keeps serving", async () => {
    const slow = await startChatMock({ tokenDelayMs: 50 });
    try {
      const controller = new AbortController();
      const response = await fetch(`${slow.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ messages: [{ role: "user", content: "Hi" }], stream: true }),
        signal: controller.signal,
      });
      const reader = response.body?.getReader();
      await reader?.read();
      controller.abort();
      await expect(reader?.read()).rejects.toThrow();
      const health = await fetch(`${slow.url}/health`);
      expect(health.status).toBe(200);
    } finally {
      await slow.stop();
    }
  });

  describe("refuses what vLLM refuses, with vLLM's error object", () => {
    it.each<[string, unknown, number, RegExp]>([
      ["a role no template knows", { messages: [{ role: "robot", content: "Hi" }] }, 400, /\/messages\/0/],
      ["top_p above 1", { messages: [{ role: "user", content: "Hi" }], top_p: 2 }, 400, /\/top_p/],
      [
        "stream_options without stream",
        { messages: [{ role: "user", content: "Hi" }], stream_options: { include_usage: true } },
        400,
        /^Stream options can only be defined when `stream=True`\.$/,
      ],
      [
        "top_logprobs without logprobs",
        { messages: [{ role: "user", content: "Hi" }], top_logprobs: 2 },
        400,
        /`logprobs` must be set to true/,
      ],
      [
        "tool_choice without tools",
        { messages: [{ role: "user", content: "Hi" }], tool_choice: "required" },
        400,
        /`tools` must be set/,
      ],
      [
        "an unknown model",
        { model: "other-lora", messages: [{ role: "user", content: "Hi" }] },
        404,
        /^The model `other-lora` does not exist\.$/,
      ],
    ])("%s", async (_name, body, status, message) => {
      const response = await post(mock, "/v1/chat/completions", body);
      const answer = await response.json();
      expect(response.status).toBe(status);
      expect(isErrorBody(answer)).toBe(true);
      expect(answer.error).toMatchObject({ code: status, message: expect.stringMatching(message) });
    });

    it("refuses a body that is not JSON", async () => {
      const response = await fetch(`${mock.url}/v1/chat/completions`, { method: "POST", body: "hi" });
      expect(response.status).toBe(400);
      expect(isErrorBody(await response.json())).toBe(true);
    });
  });

  it("lists its models as the contract's example does, and answers /health", async () => {
    const models = await (await fetch(`${mock.url}/v1/models`)).json();
    expect(isModelList(models)).toBe(true);
    expect(models).toEqual(chatExample("ModelListLora"));
    expect((await fetch(`${mock.url}/health`)).status).toBe(200);
  });
});

describe("the mock's runtime LoRA routes answer as vLLM does", () => {
  let mock: ChatMock;
  const paths = chatDocument().paths;
  const exampleOf = (path: string, status: string, name: string) =>
    paths[path].post.responses[status].content["application/json"].examples[name].value;
  beforeAll(async () => {
    mock = await startChatMock({ adapterExists: (path) => !path.includes("missing") });
  });
  afterAll(() => mock.stop());

  it("loads, serves, reloads in place and unloads an adapter", async () => {
    const load = { lora_name: "support-lora-v2", lora_path: "/models/adapters/support-lora-v2" };
    const loaded = await post(mock, "/v1/load_lora_adapter", load);
    expect(loaded.status).toBe(200);
    expect(await loaded.text()).toBe(
      paths["/v1/load_lora_adapter"].post.responses["200"].content["text/plain"].examples.loaded.value,
    );
    expect(mock.adapters.get("support-lora-v2")).toBe(load.lora_path);
    const models = await (await fetch(`${mock.url}/v1/models`)).json();
    expect(isModelList(models)).toBe(true);
    expect(models.data.map((model: { id: string }) => model.id)).toContain("support-lora-v2");
    const chat = await post(mock, "/v1/chat/completions", {
      model: "support-lora-v2",
      messages: [{ role: "user", content: "Hi" }],
    });
    expect((await chat.json()).model).toBe("support-lora-v2");
    expect((await post(mock, "/v1/load_lora_adapter", { ...load, load_inplace: true })).status).toBe(200);
    const unloaded = await post(mock, "/v1/unload_lora_adapter", { lora_name: "support-lora-v2" });
    expect(await unloaded.text()).toBe(
      paths["/v1/unload_lora_adapter"].post.responses["200"].content["text/plain"].examples.unloaded.value,
    );
    expect(mock.adapters.has("support-lora-v2")).toBe(false);
    const gone = await post(mock, "/v1/chat/completions", {
      model: "support-lora-v2",
      messages: [{ role: "user", content: "Hi" }],
    });
    expect(gone.status).toBe(404);
  });

  it.each<[string, string, unknown, number, string | RegExp]>([
    [
      "a name already loaded",
      "/v1/load_lora_adapter",
      { lora_name: "support-lora", lora_path: "/models/adapters/support-lora" },
      400,
      "alreadyLoaded",
    ],
    ["empty fields", "/v1/load_lora_adapter", { lora_name: "", lora_path: "" }, 400, "missingField"],
    [
      "a path with no adapter",
      "/v1/load_lora_adapter",
      { lora_name: "support-lora-v2", lora_path: "/models/adapters/support-lora-v2-missing" },
      404,
      /^Loading lora support-lora-v2 failed: No adapter found for /,
    ],
    ["a missing path", "/v1/load_lora_adapter", { lora_name: "x" }, 400, /lora_path/],
    [
      "an unknown adapter",
      "/v1/unload_lora_adapter",
      { lora_name: "support-lora-v2" },
      404,
      "unknownAdapter",
    ],
    ["an empty name", "/v1/unload_lora_adapter", { lora_name: "" }, 400, "missingField"],
  ])("refuses %s", async (_name, path, body, status, want) => {
    const response = await post(mock, path, body);
    const answer = await response.json();
    expect(response.status).toBe(status);
    expect(isErrorBody(answer)).toBe(true);
    if (typeof want === "string") expect(answer).toEqual(exampleOf(path, String(status), want));
    else expect(answer.error.message).toMatch(want);
  });

  it("has no LoRA routes when runtime updating is off", async () => {
    const plain = await startChatMock({ runtimeLora: false });
    try {
      const response = await post(plain, "/v1/load_lora_adapter", { lora_name: "a", lora_path: "/a" });
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ detail: "Not Found" });
    } finally {
      await plain.stop();
    }
  });
});

describe("an API key", () => {
  it("guards /v1 as vllm serve --api-key does, and leaves /health open", async () => {
    const mock = await startChatMock({ apiKey: "test-key" });
    try {
      const refused = await fetch(`${mock.url}/v1/models`);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toEqual({ error: "Unauthorized" });
      const allowed = await fetch(`${mock.url}/v1/models`, { headers: { authorization: "Bearer test-key" } });
      expect(allowed.status).toBe(200);
      await allowed.body?.cancel();
      expect((await fetch(`${mock.url}/health`)).status).toBe(200);
    } finally {
      await mock.stop();
    }
  });
});

describe("the mock as a process", () => {
  it("starts, streams and stops with its process group", async () => {
    const child = await startChatMockProcess({ tokenDelayMs: 1 });
    try {
      const response = await fetch(`${child.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ messages: [{ role: "user", content: "Hi" }], stream: true }),
      });
      const { events } = await readEventStream(response);
      expect(events.at(-1)).toBe("[DONE]");
    } finally {
      await child.stop();
    }
    expect(await child.process.exited).not.toBe("spawn-error");
    await expect(fetch(`${child.url}/health`)).rejects.toThrow();
  });

  it("refuses a bad option, naming it and what was given", async () => {
    const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
    const proc = startProcess(process.execPath, [cli, "--token-delay-ms", "fast"]);
    expect(await proc.exited).toBe(2);
    expect(proc.output()).toContain('--token-delay-ms must be a whole number of 0 or more, got "fast"');
  });
});
