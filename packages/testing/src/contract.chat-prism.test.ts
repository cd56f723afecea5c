// Every request shape a vLLM user sends goes through `prism mock --errors` on the chat contract, by fetch
// and by the official `openai` package, with no 4xx: the contract accepts what vLLM accepts.
import OpenAI from "openai";
import { describe, expect, inject, it } from "vitest";
import { chatExample, chatSchema } from "./chat-mock/contract.js";
import { requestShapes } from "./test/request-shapes.js";

const baseUrl = inject("chatPrismUrl");
const openai = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: "dummy", maxRetries: 0 });
const isCompletion = chatSchema("ChatCompletion");

const post = (path: string, body: unknown) =>
  fetch(`${baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe("the chat contract's mock accepts every request shape", () => {
  it.each(requestShapes)("fetch: %s", async (_name, request) => {
    const response = await post("/v1/chat/completions", request);
    const body = await response.json();
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(isCompletion(body), isCompletion.problems.join("\n")).toBe(true);
  });

  it.each(requestShapes)("openai: %s", async (_name, request) => {
    // vLLM's extras are not in openai's types; the package sends unknown fields as they are.
    const completion = await openai.chat.completions.create(
      request as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming,
    );
    expect(completion.object).toBe("chat.completion");
  });

  it("answers openai.chat.completions.create({ model, messages }) with the reply example", async () => {
    const completion = await openai.chat.completions.create({
      model: "support-lora",
      messages: [{ role: "user", content: "How do I reset my password?" }],
    });
    expect(completion).toEqual(chatExample("ChatCompletionReply"));
  });
});

describe("the chat contract's mock refuses what vLLM refuses", () => {
  it.each<[string, unknown]>([
    ["no messages", { model: "support-lora" }],
    ["a role no template knows", { messages: [{ role: "robot", content: "Hi" }] }],
    ["a tool result without tool_call_id", { messages: [{ role: "tool", content: "42" }] }],
    ["top_p above 1", { messages: [{ role: "user", content: "Hi" }], top_p: 1.5 }],
    ["an empty tools list", { messages: [{ role: "user", content: "Hi" }], tools: [] }],
  ])("%s", async (_name, body) => {
    const response = await post("/v1/chat/completions", body);
    await response.body?.cancel();
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
  });
});

describe("the runtime LoRA routes", () => {
  it("loads an adapter and answers vLLM's sentence", async () => {
    const response = await post("/v1/load_lora_adapter", {
      lora_name: "support-lora-v2",
      lora_path: "/models/adapters/support-lora-v2",
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("Success: LoRA adapter 'support-lora-v2' added successfully.");
  });

  it("unloads an adapter", async () => {
    const response = await post("/v1/unload_lora_adapter", { lora_name: "support-lora-v2" });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("Success: LoRA adapter 'support-lora-v2' removed successfully.");
  });

  it("refuses a load without a path", async () => {
    const response = await post("/v1/load_lora_adapter", { lora_name: "a" });
    await response.body?.cancel();
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
  });
});
