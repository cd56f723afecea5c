import type {
  ChatCompletionChoice,
  ChatCompletionChunk,
  ChatCompletionTokenLogprob,
  ChatToolCall,
  ChatToolCallDelta,
} from "@finetune-studio/types";
import type { StreamedChatCompletion } from "./streamed-completion.js";

// Folds the chunks of a stream into the completion a non-streaming call would have answered: per choice,
// the content, the reasoning and the tool calls (each assembled from its fragments by `index`), the last
// finish_reason; and the usage of the final usage chunk. Strings grow by `+=`, which V8 keeps as ropes.

interface ChoiceState {
  role: string;
  content: string | null;
  reasoning: string | undefined;
  reasoningContent: string | undefined;
  toolCalls: Map<number, ChatToolCall> | undefined;
  finishReason: string | null;
  stopReason: number | string | null | undefined;
  logprobs: ChatCompletionTokenLogprob[] | undefined;
}

export class ChunkAggregator {
  #first: ChatCompletionChunk | undefined;
  #choices = new Map<number, ChoiceState>();
  #usage: StreamedChatCompletion["usage"];
  #fingerprint: string | null | undefined;

  add(chunk: ChatCompletionChunk): void {
    this.#first ??= chunk;
    if (chunk.usage != null) this.#usage = chunk.usage;
    if (chunk.system_fingerprint != null) this.#fingerprint = chunk.system_fingerprint;
    for (const choice of chunk.choices) {
      let state = this.#choices.get(choice.index);
      if (state === undefined) {
        state = {
          role: "assistant",
          content: null,
          reasoning: undefined,
          reasoningContent: undefined,
          toolCalls: undefined,
          finishReason: null,
          stopReason: undefined,
          logprobs: undefined,
        };
        this.#choices.set(choice.index, state);
      }
      const delta = choice.delta;
      if (delta != null) {
        if (typeof delta.role === "string") state.role = delta.role;
        if (typeof delta.content === "string") state.content = (state.content ?? "") + delta.content;
        if (typeof delta.reasoning === "string") state.reasoning = (state.reasoning ?? "") + delta.reasoning;
        if (typeof delta.reasoning_content === "string") {
          state.reasoningContent = (state.reasoningContent ?? "") + delta.reasoning_content;
        }
        if (Array.isArray(delta.tool_calls)) addToolCalls(state, delta.tool_calls);
      }
      if (choice.finish_reason != null) state.finishReason = choice.finish_reason;
      if (choice.stop_reason !== undefined) state.stopReason = choice.stop_reason;
      const tokens = choice.logprobs?.content;
      if (Array.isArray(tokens)) {
        state.logprobs ??= [];
        for (const token of tokens) state.logprobs.push(token);
      }
    }
  }

  /** The completion so far; after the stream's end, the whole of it. */
  result(): StreamedChatCompletion {
    const first = this.#first;
    const choices = [...this.#choices.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, state]) => toChoice(index, state));
    const completion: StreamedChatCompletion = {
      id: first?.id ?? "",
      object: "chat.completion",
      created: first?.created ?? 0,
      model: first?.model ?? "",
      choices,
    };
    if (this.#usage !== undefined) completion.usage = this.#usage;
    if (this.#fingerprint !== undefined) completion.system_fingerprint = this.#fingerprint;
    return completion;
  }
}

function addToolCalls(state: ChoiceState, fragments: readonly ChatToolCallDelta[]): void {
  state.toolCalls ??= new Map();
  for (const fragment of fragments) {
    // The first fragment of a call carries its id, type and name; later ones add to the arguments.
    let call = state.toolCalls.get(fragment.index);
    if (call === undefined) {
      call = { id: "", type: "function", function: { name: "", arguments: "" } };
      state.toolCalls.set(fragment.index, call);
    }
    if (typeof fragment.id === "string" && fragment.id !== "") call.id = fragment.id;
    if (fragment.type === "function") call.type = fragment.type;
    const fn = fragment.function;
    if (fn != null) {
      if (typeof fn.name === "string" && call.function.name === "") call.function.name = fn.name;
      if (typeof fn.arguments === "string") call.function.arguments += fn.arguments;
    }
  }
}

function toChoice(index: number, state: ChoiceState): ChatCompletionChoice {
  const message: ChatCompletionChoice["message"] = { role: state.role, content: state.content };
  if (state.reasoning !== undefined) message.reasoning = state.reasoning;
  if (state.reasoningContent !== undefined) message.reasoning_content = state.reasoningContent;
  if (state.toolCalls !== undefined) {
    message.tool_calls = [...state.toolCalls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
  }
  const choice: ChatCompletionChoice = { index, message, finish_reason: state.finishReason };
  if (state.stopReason !== undefined) choice.stop_reason = state.stopReason;
  if (state.logprobs !== undefined) choice.logprobs = { content: state.logprobs };
  return choice;
}
