// vLLM's stream, byte for byte as its OpenAI-compatible server writes it (vllm-project/vllm, main at
// 006c49d4, entrypoints/openai/chat_completion/serving.py): pydantic's compact JSON with unset fields left
// out, a first chunk with the role and empty content, one chunk per token, a finish chunk carrying
// stop_reason, a usage-only chunk with `choices: []` when `stream_options.include_usage`, then
// `data: [DONE]`. After a failure it sends `data: {"error": {...}}` and still `data: [DONE]`.

export const MODEL = "support-lora";
const head = {
  id: "chatcmpl-8c1f2e9a7b6d4c3e",
  object: "chat.completion.chunk",
  created: 1763892000,
  model: MODEL,
};

/** Text with 2-, 3- and 4-byte UTF-8 characters, so a split write can land inside one. */
export const TEXT_DELTAS = [
  "Reset it",
  " from Settings → Security",
  " — then sign in again ",
  "🔐",
  ". Déjà vu?",
];

function chunk(choice: Record<string, unknown>): string {
  return JSON.stringify({ ...head, choices: [choice] });
}

const usage = (completion: number) =>
  JSON.stringify({
    ...head,
    choices: [],
    usage: { prompt_tokens: 21, total_tokens: 21 + completion, completion_tokens: completion },
  });

/** A plain reply: the `data:` payloads in order, [DONE] excluded. */
export function textEvents(deltas: readonly string[] = TEXT_DELTAS): string[] {
  return [
    chunk({ index: 0, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null }),
    ...deltas.map((content) =>
      chunk({ index: 0, delta: { content }, logprobs: null, finish_reason: null, token_ids: null }),
    ),
    chunk({
      index: 0,
      delta: { content: "" },
      logprobs: null,
      finish_reason: "stop",
      stop_reason: null,
      token_ids: null,
    }),
    usage(deltas.length),
  ];
}

/** Two parallel tool calls whose arguments arrive in fragments, interleaved, as a tool parser streams them. */
export function toolCallEvents(): string[] {
  const tool = (tool_calls: unknown[], finish_reason: string | null = null) =>
    chunk({ index: 0, delta: { tool_calls }, logprobs: null, finish_reason, token_ids: null });
  return [
    chunk({ index: 0, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null }),
    tool([{ id: "chatcmpl-tool-a1", type: "function", index: 0, function: { name: "get_weather" } }]),
    tool([{ index: 0, function: { arguments: '{"city": "' } }]),
    tool([{ id: "chatcmpl-tool-b2", type: "function", index: 1, function: { name: "get_time" } }]),
    tool([{ index: 0, function: { arguments: 'Zürich"}' } }]),
    tool([{ index: 1, function: { arguments: '{"zone": "Europe/Zurich"}' } }]),
    chunk({
      index: 0,
      delta: { content: "" },
      logprobs: null,
      finish_reason: "tool_calls",
      stop_reason: null,
      token_ids: null,
    }),
    usage(18),
  ];
}

/** A reasoning model: `reasoning` deltas (older servers: `reasoning_content`), then the answer. */
export function reasoningEvents(field: "reasoning" | "reasoning_content" = "reasoning"): string[] {
  const delta = (value: Record<string, unknown>) =>
    chunk({ index: 0, delta: value, logprobs: null, finish_reason: null, token_ids: null });
  return [
    chunk({ index: 0, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null }),
    delta({ [field]: "The user wants" }),
    delta({ [field]: " the reset steps." }),
    delta({ content: "Open Settings." }),
    chunk({
      index: 0,
      delta: {},
      logprobs: null,
      finish_reason: "length",
      stop_reason: null,
      token_ids: null,
    }),
  ];
}

/** What vLLM writes when generation fails after the 200 (`create_streaming_error_response`). */
export function errorEvent(message: string): string {
  return JSON.stringify({ error: { message, type: "InternalServerError", param: null, code: 500 } });
}

/** The events as vLLM frames them: `data: <payload>\n\n` each, then `data: [DONE]\n\n`. */
export function frame(events: readonly string[], { done = true } = {}): string {
  return events.map((data) => `data: ${data}\n\n`).join("") + (done ? "data: [DONE]\n\n" : "");
}
