// The chat client against `prism mock --errors` on the chat-completions contract, and the official
// `openai` package against the same mock: if the contract drifted from what real clients send, the
// mock would refuse the openai package's request.
import type { ChatCompletionRequest } from "@finetune-studio/types";
import chatDocument from "@finetune-studio/types/chat-completions.openapi.json" with { type: "json" };
import OpenAI from "openai";
import { describe, expect, inject, it } from "vitest";
import { createChatClient } from "./chat.js";
import {
  StudioApiError,
  StudioAuthError,
  StudioNotFoundError,
  StudioServerError,
  StudioTimeoutError,
} from "./errors.js";

const baseUrl = inject("chatMockUrl");
const examples = chatDocument.components.examples as Record<string, { value: unknown }>;
const reply = examples.ChatCompletionReply?.value as { choices: [{ message: { content: string } }] };
const models = examples.ModelListLora?.value;
const request = {
  model: "support-lora",
  messages: [
    { role: "system", content: "You are a concise support assistant." },
    { role: "user", content: "How do I reset my password?" },
  ],
  max_tokens: 128,
  temperature: 0.2,
} satisfies ChatCompletionRequest;

describe("createChatClient against the chat-completions mock", () => {
  const chat = createChatClient({ baseUrl });

  it("completes a chat", async () => {
    await expect(chat.complete(request)).resolves.toEqual(reply);
  });

  it("passes other OpenAI fields through", async () => {
    await expect(chat.complete({ ...request, top_p: 0.9, stop: ["\n\n"], seed: 7 })).resolves.toEqual(reply);
  });

  it("returns the reply text", async () => {
    await expect(chat.text(request)).resolves.toBe(reply.choices[0].message.content);
  });

  it("lists the models", async () => {
    await expect(chat.listModels()).resolves.toEqual(models);
  });

  it("reports health", async () => {
    await expect(chat.health()).resolves.toBe(true);
  });

  it("is ready once the model is listed", async () => {
    await expect(chat.waitUntilReady({ model: "support-lora", timeoutMs: 10_000 })).resolves.toEqual(models);
  });

  it("times out waiting for a model the server does not list, and says which it lists", async () => {
    const error = await chat
      .waitUntilReady({ model: "other-lora", timeoutMs: 300, intervalMs: 20 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioTimeoutError);
    expect((error as Error).message).toContain('"support-lora"');
  });

  it("sends an api key when given one, as the contract allows", async () => {
    const keyed = createChatClient({ baseUrl, apiKey: "dummy" });
    await expect(keyed.text(request)).resolves.toBe(reply.choices[0].message.content);
  });

  it.each<[number, typeof StudioApiError]>([
    [400, StudioApiError],
    [401, StudioAuthError],
    [404, StudioNotFoundError],
    [500, StudioServerError],
  ])("raises %i as the matching error, with vLLM's message", async (status, type) => {
    const failing = createChatClient({ baseUrl, fetch: (r) => fetch(withPrefer(r, `code=${status}`)) });
    const error = await failing.complete(request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(type);
    // vLLM's API-key middleware answers 401 with `{"error": "Unauthorized"}`; its other errors nest the code.
    const body = status === 401 ? { error: "Unauthorized" } : { error: { code: status } };
    expect(error).toMatchObject({ status, body });
  });

  it("is refused by the mock when it breaks the contract (the raw client skips validation)", async () => {
    const { response } = await chat.raw.POST("/v1/chat/completions", {
      body: { model: "support-lora", messages: [] } as never,
    });
    // Prism answers with the operation's 400 response and lists what broke the contract in sl-violations.
    expect(response.status).toBe(400);
    expect(response.headers.get("sl-violations")).toContain("messages");
  });
});

describe("the official openai package against the mock", () => {
  it("completes a chat with baseURL <server>/v1 and a dummy key", async () => {
    const openai = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: "dummy", maxRetries: 0 });
    const completion = await openai.chat.completions.create({
      model: request.model,
      messages: [
        { role: "system", content: "You are a concise support assistant." },
        { role: "user", content: "How do I reset my password?" },
      ],
      max_tokens: 128,
      temperature: 0.2,
    });
    expect(completion.choices[0]?.message.content).toBe(reply.choices[0].message.content);
  });

  it("lists the models", async () => {
    const openai = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: "dummy", maxRetries: 0 });
    const page = await openai.models.list();
    expect(page.data.map((model) => model.id)).toEqual(["meta-llama/Llama-3.1-8B-Instruct", "support-lora"]);
  });
});

function withPrefer(request: Request, prefer: string): Request {
  const headers = new Headers(request.headers);
  headers.set("Prefer", prefer);
  return new Request(request, { headers });
}
