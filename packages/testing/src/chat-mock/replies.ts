// The answers of the mock, built from the contract's own examples so that they stay what the contract
// says vLLM sends: the completion, and the same completion as a stream of chunks, token by token.
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionRequest,
  ChatCompletionStreamError,
  ChatCompletionUsage,
  ChatToolCall,
} from "@finetune-studio/types";
import { chatExample } from "./contract.js";

export interface ReplyContext {
  /** The model name the request used (or the server's first model). */
  readonly model: string;
  readonly id: string;
  readonly created: number;
}

/** Splits text the way a tokenizer streams it: each word with the whitespace before it. */
export function splitIntoTokens(text: string): string[] {
  return text.match(/\s*\S+|\s+$/g) ?? [];
}

/** The tool the model calls, when the request offers tools and lets the model call one. */
export function toolToCall(request: ChatCompletionRequest): string | undefined {
  const { tools, tool_choice: choice } = request;
  if (!tools || tools.length === 0 || choice === "none") return undefined;
  // A conversation that already holds a tool result gets a text answer, as a model would give.
  if (request.messages.at(-1)?.role === "tool") return undefined;
  if (choice && typeof choice === "object") return choice.function.name;
  return tools[0]?.function.name;
}

function toolCallFor(name: string): ChatToolCall {
  const example = chatExample<ChatCompletion>("ChatCompletionToolCalls");
  const call = example.choices[0]?.message.tool_calls?.[0];
  if (!call) throw new Error("the ChatCompletionToolCalls example has no tool call");
  // The example's arguments fit the example's function only.
  return {
    ...call,
    function: { name, arguments: name === call.function.name ? call.function.arguments : "{}" },
  };
}

/** The JSON answer to `stream: false`: one choice per `n`, a tool call when one is due. */
export function buildCompletion(request: ChatCompletionRequest, context: ReplyContext): ChatCompletion {
  const tool = toolToCall(request);
  const completion = chatExample<ChatCompletion>(tool ? "ChatCompletionToolCalls" : "ChatCompletionReply");
  const [choice] = completion.choices;
  if (!choice) throw new Error("the reply example has no choice");
  if (tool) choice.message.tool_calls = [toolCallFor(tool)];
  const n = request.n ?? 1;
  return {
    ...completion,
    id: context.id,
    created: context.created,
    model: context.model,
    choices: Array.from({ length: n }, (_, index) => ({ ...structuredClone(choice), index })),
    usage: scaleUsage(completion.usage, n),
  };
}

function scaleUsage(usage: ChatCompletionUsage, n: number): ChatCompletionUsage {
  const completion = (usage.completion_tokens ?? 0) * n;
  return { ...usage, completion_tokens: completion, total_tokens: usage.prompt_tokens + completion };
}

/**
 * The events of `stream: true`: per choice a role chunk, the reply one token per chunk (or the tool call
 * in two pieces), a finish chunk; then, with `stream_options.include_usage`, the usage chunk. `data: [DONE]`
 * follows them.
 */
export function buildStream(request: ChatCompletionRequest, context: ReplyContext): ChatCompletionChunk[] {
  const completion = buildCompletion(request, context);
  const head = {
    id: context.id,
    object: "chat.completion.chunk" as const,
    created: context.created,
    model: context.model,
  };
  const role = chatExample<ChatCompletionChunk>("ChatCompletionChunkRole").choices[0];
  const finish = chatExample<ChatCompletionChunk>("ChatCompletionChunkFinish").choices[0];
  const piece = chatExample<ChatCompletionChunk>("ChatCompletionChunkContent").choices[0];
  if (!role || !finish || !piece) throw new Error("the chunk examples have no choice");
  const chunks: ChatCompletionChunk[] = [];
  for (const choice of completion.choices) {
    const { index } = choice;
    chunks.push({ ...head, choices: [{ ...role, index }] });
    const call = choice.message.tool_calls?.[0];
    if (call) {
      const cut = Math.ceil(call.function.arguments.length / 2);
      const first = {
        index: 0,
        id: call.id,
        type: "function" as const,
        function: { name: call.function.name, arguments: call.function.arguments.slice(0, cut) },
      };
      const rest = { index: 0, function: { arguments: call.function.arguments.slice(cut) } };
      chunks.push({ ...head, choices: [{ ...piece, index, delta: { tool_calls: [first] } }] });
      chunks.push({ ...head, choices: [{ ...piece, index, delta: { tool_calls: [rest] } }] });
    } else {
      for (const token of splitIntoTokens(choice.message.content ?? "")) {
        chunks.push({ ...head, choices: [{ ...piece, index, delta: { content: token } }] });
      }
    }
    chunks.push({ ...head, choices: [{ ...finish, index, finish_reason: choice.finish_reason }] });
  }
  const options = request.stream_options;
  if (options?.include_usage) {
    if (options.continuous_usage_stats) {
      for (const chunk of chunks) chunk.usage = runningUsage(completion.usage, chunks.indexOf(chunk) + 1);
    }
    chunks.push({ ...head, choices: [], usage: completion.usage });
  }
  return chunks;
}

function runningUsage(usage: ChatCompletionUsage, generated: number): ChatCompletionUsage {
  const completion = Math.min(generated, usage.completion_tokens ?? generated);
  return {
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: completion,
    total_tokens: usage.prompt_tokens + completion,
  };
}

/** The error event vLLM sends inside a stream that fails after its 200. */
export function streamError(): ChatCompletionStreamError {
  return chatExample<ChatCompletionStreamError>("ChatCompletionStreamError");
}
