// Instances drawn from vLLM's chat server (the version named in openapi/README.md): what each chat schema
// must accept, because the server accepts or sends it, and what it must refuse, because the server does.
import { loadDocument } from "./contract-schema.js";

const chat = loadDocument("chat-completions");
const example = (name: string) => structuredClone(chat.components.examples[name].value);

type Row = readonly [name: string, instance: unknown];

const user = (content: unknown) => ({ role: "user", content });
const ask = (patch: object = {}) => ({ model: "support-lora", messages: [user("Hi")], ...patch });
const askWith = (message: object) => ({ model: "support-lora", messages: [message] });
const toolCall = { id: "call-1", type: "function", function: { name: "lookup", arguments: "{}" } };
const tool = { type: "function", function: { name: "lookup", parameters: { type: "object" } } };

const reply = example("ChatCompletionReply");
const withChoice = (patch: object) => ({ ...reply, choices: [{ ...reply.choices[0], ...patch }] });
const withMessage = (patch: object) => withChoice({ message: { ...reply.choices[0].message, ...patch } });
const without = (base: Record<string, unknown>, field: string) => {
  const copy = structuredClone(base);
  delete copy[field];
  return copy;
};

const chunk = example("ChatCompletionChunkContent");
const withDelta = (delta: object) => ({ ...chunk, choices: [{ ...chunk.choices[0], delta }] });

const requestExamples = Object.keys(chat.components.examples)
  .filter((name) => name.startsWith("ChatRequest"))
  .map((name): Row => [`the ${name} example`, example(name)]);

export const validChat: Record<string, Row[]> = {
  ChatCompletionRequest: [
    ...requestExamples,
    ["what openai.chat.completions.create({ model, messages }) sends", ask()],
    ["no model (the server's first model)", { messages: [user("Hi")] }],
    ["max_tokens alone", ask({ max_tokens: 1 })],
    ["max_completion_tokens alone", ask({ max_completion_tokens: 64 })],
    ["nulls where clients send them", ask({ max_tokens: null, temperature: null, stop: null, seed: null })],
    ["stop as a string", ask({ stop: "###" })],
    ["stop as a list", ask({ stop: ["\n\n", "User:"] })],
    ["text content parts", askWith(user([{ type: "text", text: "Hi" }]))],
    [
      "an image as a data URL",
      askWith(user([{ type: "image_url", image_url: { url: "data:image/png;base64,iVBO" } }])),
    ],
    [
      "input audio",
      askWith(user([{ type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } }])),
    ],
    [
      "audio and video by URL (vLLM)",
      askWith(
        user([
          { type: "audio_url", audio_url: { url: "https://x/a.wav" } },
          { type: "video_url", video_url: { url: "https://x/v.mp4" } },
        ]),
      ),
    ],
    [
      "a system message with text parts",
      askWith({ role: "system", content: [{ type: "text", text: "Be brief." }] }),
    ],
    ["a developer message", askWith({ role: "developer", content: "Be brief." })],
    ["a named user", askWith({ role: "user", content: "Hi", name: "ada" })],
    [
      "an assistant turn with null content and tool calls",
      askWith({ role: "assistant", content: null, tool_calls: [toolCall] }),
    ],
    ["an assistant turn without content", askWith({ role: "assistant", tool_calls: [toolCall] })],
    ["an assistant turn with reasoning", askWith({ role: "assistant", content: "4", reasoning: "2 + 2" })],
    [
      "an assistant turn with the older reasoning_content",
      askWith({ role: "assistant", content: "4", reasoning_content: "2 + 2" }),
    ],
    [
      "an assistant turn with a refusal part",
      askWith({ role: "assistant", content: [{ type: "refusal", refusal: "No." }] }),
    ],
    ["a tool result", askWith({ role: "tool", tool_call_id: "call-1", content: "42" })],
    [
      "a tool result as text parts",
      askWith({ role: "tool", tool_call_id: "call-1", content: [{ type: "text", text: "42" }] }),
    ],
    ["a function result (deprecated)", askWith({ role: "function", name: "lookup", content: "42" })],
    ["tool_choice required", ask({ tools: [tool], tool_choice: "required" })],
    ["tool_choice none", ask({ tools: [tool], tool_choice: "none" })],
    [
      "a named tool_choice",
      ask({ tools: [tool], tool_choice: { type: "function", function: { name: "lookup" } } }),
    ],
    ["response_format text", ask({ response_format: { type: "text" } })],
    ["response_format json_object", ask({ response_format: { type: "json_object" } })],
    [
      "response_format structural_tag",
      ask({ response_format: { type: "structural_tag", format: { type: "any_text" } } }),
    ],
    [
      "stream with continuous usage",
      ask({ stream: true, stream_options: { include_usage: true, continuous_usage_stats: true } }),
    ],
    [
      "the limits' edges",
      ask({
        temperature: 0,
        top_p: 1,
        top_k: -1,
        min_p: 1,
        presence_penalty: -2,
        frequency_penalty: 2,
        n: 1,
        top_logprobs: -1,
        logprobs: true,
        prompt_logprobs: -1,
        min_tokens: 0,
        stream_interval: 1,
      }),
    ],
    ["a repetition penalty below 1", ask({ repetition_penalty: 0.5 })],
    ["a regex structured output", ask({ structured_outputs: { regex: "[0-9]{3}" } })],
    [
      "a JSON schema structured output as a string",
      ask({ structured_outputs: { json: '{"type":"object"}' } }),
    ],
    ["a grammar structured output", ask({ structured_outputs: { grammar: 'root ::= "yes" | "no"' } })],
    ["reasoning_effort", ask({ reasoning_effort: "low" })],
    ["a cache salt of 128 characters", ask({ cache_salt: "a".repeat(128) })],
    ["a field a newer server adds", ask({ some_future_field: { on: true } })],
  ],
  ChatCompletion: [
    ["the reply example", reply],
    ["the tool-call example", example("ChatCompletionToolCalls")],
    ["the reasoning example", example("ChatCompletionReasoning")],
    ["the logprobs example", example("ChatCompletionLogprobs")],
    ["content null", withMessage({ content: null })],
    [
      "tool_calls left out (newer servers)",
      withChoice({ message: without(reply.choices[0].message, "tool_calls") }),
    ],
    ["a stop string as stop_reason", withChoice({ stop_reason: "###" })],
    ["a stop token id as stop_reason", withChoice({ stop_reason: 128009 })],
    ["finish_reason length", withChoice({ finish_reason: "length" })],
    [
      "cached prompt tokens",
      { ...reply, usage: { ...reply.usage, prompt_tokens_details: { cached_tokens: 16 } } },
    ],
    [
      "token ids (return_token_ids)",
      { ...withChoice({ token_ids: [9906, 0] }), prompt_token_ids: [1, 2, 3] },
    ],
    ["the fields older servers leave out", without(without(reply, "service_tier"), "kv_transfer_params")],
    ["request metrics", { ...reply, metrics: { time_to_first_token_ms: 12.5, tokens_per_second: 80 } }],
    ["a field a newer server adds", { ...reply, some_future_field: [1, 2] }],
  ],
  ChatCompletionChunk: [
    ["the role example", example("ChatCompletionChunkRole")],
    ["the content example", chunk],
    ["the finish example", example("ChatCompletionChunkFinish")],
    ["the usage example", example("ChatCompletionChunkUsage")],
    ["the tool-call example", example("ChatCompletionChunkToolCall")],
    ["an empty delta", withDelta({})],
    [
      "a later piece of tool-call arguments",
      withDelta({ tool_calls: [{ index: 0, function: { arguments: '"A-1042"}' } }] }),
    ],
    ["the older reasoning_content", withDelta({ reasoning_content: "Let me see" })],
    [
      "usage on every chunk (continuous_usage_stats)",
      { ...chunk, usage: { prompt_tokens: 31, total_tokens: 33, completion_tokens: 2 } },
    ],
    ["usage null", { ...chunk, usage: null }],
  ],
  ChatCompletionStreamEvent: [
    ["a chunk", chunk],
    ["vLLM's error event", example("ChatCompletionStreamError")],
    [
      "an older server's error event",
      { error: { object: "error", message: "boom", type: "BadRequestError", param: null, code: 400 } },
    ],
  ],
  ChatErrorBody: [
    ["the current shape", { error: { message: "m", type: "BadRequestError", param: "model", code: 400 } }],
    [
      "the older top-level shape",
      { object: "error", message: "m", type: "BadRequestError", param: null, code: 400 },
    ],
    ["a refused API key", { error: "Unauthorized" }],
    ["a route the server does not have", { detail: "Not Found" }],
  ],
  LoadLoraAdapterRequest: [
    ["a name and a path", { lora_name: "a", lora_path: "/models/a" }],
    ["in place", { lora_name: "a", lora_path: "/models/a", load_inplace: true }],
    ["empty strings (the server answers 400 itself)", { lora_name: "", lora_path: "" }],
  ],
  UnloadLoraAdapterRequest: [
    ["a name", { lora_name: "a" }],
    ["a name and an engine id", { lora_name: "a", lora_int_id: 1 }],
  ],
};

export const invalidChat: Record<string, Row[]> = {
  ChatCompletionRequest: [
    ["no messages", { model: "m" }],
    ["an empty conversation", ask({ messages: [] })],
    ["a message without a role", askWith({ content: "Hi" })],
    ["a role no template knows", askWith({ role: "robot", content: "Hi" })],
    ["a user message without content", askWith({ role: "user" })],
    ["a user message whose content is a number", askWith(user(42))],
    ["a user message whose content is null", askWith(user(null))],
    ["a part of an unknown type", askWith(user([{ type: "hologram", hologram: {} }]))],
    ["an image part without a URL", askWith(user([{ type: "image_url", image_url: {} }]))],
    ["a tool message without tool_call_id", askWith({ role: "tool", content: "42" })],
    [
      "a tool call without an id",
      askWith({
        role: "assistant",
        content: null,
        tool_calls: [{ type: "function", function: { name: "f", arguments: "{}" } }],
      }),
    ],
    [
      "a tool call whose arguments are an object",
      askWith({ role: "assistant", tool_calls: [{ ...toolCall, function: { name: "f", arguments: {} } }] }),
    ],
    ["an empty model name", ask({ model: "" })],
    ["max_tokens 0", ask({ max_tokens: 0 })],
    ["a fractional max_tokens", ask({ max_tokens: 1.5 })],
    ["max_completion_tokens 0", ask({ max_completion_tokens: 0 })],
    ["a negative temperature", ask({ temperature: -0.1 })],
    ["a temperature as a string", ask({ temperature: "hot" })],
    ["top_p 0", ask({ top_p: 0 })],
    ["top_p above 1", ask({ top_p: 1.01 })],
    ["top_k below -1", ask({ top_k: -2 })],
    ["min_p above 1", ask({ min_p: 1.5 })],
    ["repetition_penalty 0", ask({ repetition_penalty: 0 })],
    ["presence_penalty above 2", ask({ presence_penalty: 2.5 })],
    ["frequency_penalty below -2", ask({ frequency_penalty: -2.5 })],
    ["n 0", ask({ n: 0 })],
    ["top_logprobs below -1", ask({ logprobs: true, top_logprobs: -2 })],
    ["prompt_logprobs below -1", ask({ prompt_logprobs: -2 })],
    ["min_tokens below 0", ask({ min_tokens: -1 })],
    ["stream_interval 0", ask({ stream: true, stream_interval: 0 })],
    ["stream as a string", ask({ stream: "yes" })],
    ["an empty tools list", ask({ tools: [] })],
    ["a tool without a function", ask({ tools: [{ type: "function" }] })],
    ["an unknown tool_choice", ask({ tools: [tool], tool_choice: "sometimes" })],
    [
      "a named tool_choice without a name",
      ask({ tools: [tool], tool_choice: { type: "function", function: { name: "" } } }),
    ],
    ["response_format json_schema without the schema", ask({ response_format: { type: "json_schema" } })],
    ["an unknown response_format", ask({ response_format: { type: "yaml" } })],
    ["an unknown truncation_side", ask({ truncate_prompt_tokens: 8, truncation_side: "middle" })],
    ["an unknown reasoning_effort", ask({ reasoning_effort: "extreme" })],
    ["an empty cache salt", ask({ cache_salt: "" })],
    ["a cache salt of 129 characters", ask({ cache_salt: "a".repeat(129) })],
    ["a cache salt with a slash", ask({ cache_salt: "team/a" })],
  ],
  ChatCompletion: [
    ["no choices", without(reply, "choices")],
    ["no usage", without(reply, "usage")],
    ["a chunk's object", { ...reply, object: "chat.completion.chunk" }],
    ["a message without content", withChoice({ message: { role: "assistant" } })],
    ["a choice without finish_reason", withChoice({ finish_reason: undefined })],
    ["a tool call without its function", withMessage({ tool_calls: [{ id: "c", type: "function" }] })],
  ],
  ChatCompletionChunk: [
    ["a completion's object", { ...chunk, object: "chat.completion" }],
    ["a choice without delta", { ...chunk, choices: [{ index: 0, finish_reason: null }] }],
    ["a tool-call piece without index", withDelta({ tool_calls: [{ id: "c", function: { name: "f" } }] })],
    ["no choices", without(chunk, "choices")],
  ],
  ChatCompletionStreamEvent: [
    ["an empty object", {}],
    ["an error without a message", { error: { code: 500 } }],
    ["the [DONE] terminator (not JSON)", "[DONE]"],
  ],
  LoadLoraAdapterRequest: [
    ["no path", { lora_name: "a" }],
    ["no name", { lora_path: "/models/a" }],
    ["load_inplace as a string", { lora_name: "a", lora_path: "/models/a", load_inplace: "yes" }],
  ],
  UnloadLoraAdapterRequest: [["no name", {}]],
};
