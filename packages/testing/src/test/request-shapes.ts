// Every request shape a vLLM user sends, as the official `openai` package takes it: the contract's request
// examples and the shapes the contract must accept beyond them.
import type { ChatCompletionRequest } from "@finetune-studio/types";
import { chatDocument } from "../chat-mock/contract.js";

const toolCall = {
  id: "chatcmpl-tool-1",
  type: "function" as const,
  function: { name: "get_order_status", arguments: '{"order_id": "A-1042"}' },
};
const tool = {
  type: "function" as const,
  function: {
    name: "get_order_status",
    parameters: { type: "object", properties: { order_id: { type: "string" } } },
  },
};
const ask = (patch: Partial<ChatCompletionRequest> = {}): ChatCompletionRequest => ({
  model: "support-lora",
  messages: [{ role: "user", content: "Where is my order A-1042?" }],
  ...patch,
});

const examples: [string, ChatCompletionRequest][] = Object.entries<{ value: ChatCompletionRequest }>(
  chatDocument().components.examples,
)
  .filter(([name]) => name.startsWith("ChatRequest"))
  .map(([name, example]) => [`the ${name} example`, example.value]);

/** Non-streaming request shapes (streaming ones need the streaming mock: Prism answers them in one piece). */
export const requestShapes: [string, ChatCompletionRequest][] = [
  ...examples.filter(([, request]) => !request.stream),
  ["model and messages only", ask()],
  ["max_tokens", ask({ max_tokens: 64 })],
  ["max_completion_tokens", ask({ max_completion_tokens: 64 })],
  [
    "n, stop, seed, top_p, penalties",
    ask({ n: 2, stop: ["\n\n"], seed: 7, top_p: 0.9, presence_penalty: 0.5, frequency_penalty: 0.5 }),
  ],
  ["logprobs and top_logprobs", ask({ logprobs: true, top_logprobs: 3 })],
  ["user", ask({ user: "user-1234" })],
  [
    "a system and a developer message",
    ask({
      messages: [
        { role: "system", content: "Be brief." },
        { role: "developer", content: "Answer in English." },
        { role: "user", content: "Hi" },
      ],
    }),
  ],
  ["text parts", ask({ messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }] })],
  [
    "an image part",
    ask({
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
          ],
        },
      ],
    }),
  ],
  [
    "an assistant turn with content null and tool_calls, then a tool result",
    ask({
      tools: [tool],
      messages: [
        { role: "user", content: "Where is A-1042?" },
        { role: "assistant", content: null, tool_calls: [toolCall] },
        { role: "tool", tool_call_id: toolCall.id, content: '{"status":"shipped"}' },
      ],
    }),
  ],
  ["tools with tool_choice auto", ask({ tools: [tool], tool_choice: "auto" })],
  ["tools with tool_choice required", ask({ tools: [tool], tool_choice: "required" })],
  [
    "a named tool_choice",
    ask({ tools: [tool], tool_choice: { type: "function", function: { name: "get_order_status" } } }),
  ],
  ["response_format json_object", ask({ response_format: { type: "json_object" } })],
  [
    "response_format json_schema",
    ask({
      response_format: {
        type: "json_schema",
        json_schema: { name: "status", schema: { type: "object" }, strict: true },
      },
    }),
  ],
  ["vLLM extras: top_k, min_p, repetition_penalty", ask({ top_k: 20, min_p: 0.1, repetition_penalty: 1.2 })],
  ["vLLM structured outputs", ask({ structured_outputs: { choice: ["shipped", "pending"] } })],
  ["vLLM chat_template_kwargs", ask({ chat_template_kwargs: { enable_thinking: false } })],
  ["no model (the server's first model)", { messages: [{ role: "user", content: "Hi" }] }],
];

/** Streaming request shapes, for the streaming mock. */
export const streamShapes: [string, ChatCompletionRequest][] = [
  ...examples.filter(([, request]) => request.stream),
  ["stream without usage", ask({ stream: true })],
  [
    "stream with continuous usage",
    ask({ stream: true, stream_options: { include_usage: true, continuous_usage_stats: true } }),
  ],
  ["stream of a tool call", ask({ stream: true, tools: [tool], tool_choice: "required" })],
  ["stream of two choices", ask({ stream: true, n: 2 })],
];
