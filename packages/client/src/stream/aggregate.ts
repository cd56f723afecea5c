import type {
  ChatCompletionChoice,
  ChatCompletionChunk,
  ChatToolCall,
  ChatToolCallDelta,
} from "@finetune-studio/types";
import type { StreamedChatCompletion } from "./streamed-completion.js";

// Folds the chunks of a stream into the completion a non-streaming call would have answered: per choice,
// the content, the reasoning and the tool calls (each assembled from its fragments by `index`), the last
// finish_reason; and the usage of the final usage chunk. Strings grow by `+=`, which V8 keeps as ropes.
// Choices and calls are kept in Maps, not arrays, so a hostile index cannot make a huge sparse array.

/** The delta's text fields, appended to the message's fields of the same name. */
const TEXT_FIELDS = ["content", "reasoning", "reasoning_content"] as const;

interface ChoiceInProgress {
  readonly choice: ChatCompletionChoice;
  readonly calls: Map<number, ChatToolCall>;
}

export class ChunkAggregator {
  #head: ChatCompletionChunk | undefined;
  #choices = new Map<number, ChoiceInProgress>();
  #usage: StreamedChatCompletion["usage"];
  #fingerprint: string | undefined;

  add(chunk: ChatCompletionChunk): void {
    this.#head ??= chunk;
    if (chunk.usage != null) this.#usage = chunk.usage;
    if (chunk.system_fingerprint != null) this.#fingerprint = chunk.system_fingerprint;
    for (const { index, delta, finish_reason, stop_reason, logprobs } of chunk.choices) {
      let entry = this.#choices.get(index);
      if (entry === undefined) {
        entry = {
          choice: { index, message: { role: "assistant", content: null }, finish_reason: null },
          calls: new Map(),
        };
        this.#choices.set(index, entry);
      }
      const { choice, calls } = entry;
      const message = choice.message;
      if (delta != null) {
        if (typeof delta.role === "string") message.role = delta.role;
        for (const field of TEXT_FIELDS) {
          const piece = delta[field];
          if (typeof piece === "string") message[field] = (message[field] ?? "") + piece;
        }
        if (Array.isArray(delta.tool_calls))
          for (const fragment of delta.tool_calls) addToolCall(calls, fragment);
      }
      if (finish_reason != null) choice.finish_reason = finish_reason;
      if (stop_reason !== undefined) choice.stop_reason = stop_reason;
      if (Array.isArray(logprobs?.content)) {
        choice.logprobs ??= { content: [] };
        choice.logprobs.content?.push(...logprobs.content);
      }
    }
  }

  /** The completion so far; after the stream's end, the whole of it. */
  result(): StreamedChatCompletion {
    const head = this.#head;
    const completion: StreamedChatCompletion = {
      id: head?.id ?? "",
      object: "chat.completion",
      created: head?.created ?? 0,
      model: head?.model ?? "",
      choices: byIndex(this.#choices).map(({ choice, calls }) =>
        calls.size === 0 ? choice : { ...choice, message: { ...choice.message, tool_calls: byIndex(calls) } },
      ),
    };
    if (this.#usage !== undefined) completion.usage = this.#usage;
    if (this.#fingerprint !== undefined) completion.system_fingerprint = this.#fingerprint;
    return completion;
  }
}

/** The first fragment of a call carries its id, type and name; later ones add to the arguments. */
function addToolCall(calls: Map<number, ChatToolCall>, fragment: ChatToolCallDelta): void {
  let call = calls.get(fragment.index);
  if (call === undefined) {
    call = { id: "", type: "function", function: { name: "", arguments: "" } };
    calls.set(fragment.index, call);
  }
  if (fragment.id) call.id = fragment.id;
  const { name, arguments: piece } = fragment.function ?? {};
  if (name && !call.function.name) call.function.name = name;
  if (typeof piece === "string") call.function.arguments += piece;
}

function byIndex<T>(entries: Map<number, T>): T[] {
  return [...entries].sort(([a], [b]) => a - b).map(([, value]) => value);
}
