import type { ChatCompletionChoice, ChatCompletionChunk, ChatToolCall } from "@finetune-studio/types";
import type { StreamedChatCompletion } from "./streamed-completion.js";

// Folds a stream's chunks into the completion a non-streaming call would have answered. Choices and tool
// calls are kept in Maps by `index`, so a hostile index cannot make a huge sparse array. Strings grow by
// `+=`, which V8 keeps as ropes.

const TEXT_FIELDS = ["content", "reasoning", "reasoning_content"] as const;

export class ChunkAggregator {
  #head: ChatCompletionChunk | undefined;
  #usage: StreamedChatCompletion["usage"];
  #fingerprint: string | undefined;
  /** Each choice by its index, with its tool calls by theirs. */
  readonly #choices = new Map<number, [ChatCompletionChoice, Map<number, ChatToolCall>]>();

  add(chunk: ChatCompletionChunk): void {
    this.#head ??= chunk;
    this.#usage = chunk.usage ?? this.#usage;
    this.#fingerprint = chunk.system_fingerprint ?? this.#fingerprint;
    for (const { index, delta, finish_reason, stop_reason, logprobs } of chunk.choices) {
      let entry = this.#choices.get(index);
      if (entry === undefined) {
        entry = [{ index, message: { role: "assistant", content: null }, finish_reason: null }, new Map()];
        this.#choices.set(index, entry);
      }
      const [choice, calls] = entry;
      const { message } = choice;
      if (typeof delta?.role === "string") message.role = delta.role;
      for (const field of TEXT_FIELDS) {
        const piece = delta?.[field];
        if (typeof piece === "string") message[field] = (message[field] ?? "") + piece;
      }
      // The first fragment of a call carries its id, type and name; later ones add to the arguments.
      if (Array.isArray(delta?.tool_calls)) {
        for (const { index: at, id, function: fn } of delta.tool_calls) {
          const call = calls.get(at) ?? { id: "", type: "function", function: { name: "", arguments: "" } };
          calls.set(at, call);
          if (id) call.id = id;
          if (fn?.name && !call.function.name) call.function.name = fn.name;
          if (typeof fn?.arguments === "string") call.function.arguments += fn.arguments;
        }
      }
      if (finish_reason != null) choice.finish_reason = finish_reason;
      if (stop_reason !== undefined) choice.stop_reason = stop_reason;
      if (Array.isArray(logprobs?.content)) {
        choice.logprobs ??= { content: [] };
        choice.logprobs.content?.push(...logprobs.content);
      }
    }
  }

  result(): StreamedChatCompletion {
    const head = this.#head;
    const completion: StreamedChatCompletion = {
      id: head?.id ?? "",
      object: "chat.completion",
      created: head?.created ?? 0,
      model: head?.model ?? "",
      choices: byIndex(this.#choices).map(([choice, calls]) =>
        calls.size ? { ...choice, message: { ...choice.message, tool_calls: byIndex(calls) } } : choice,
      ),
    };
    if (this.#usage !== undefined) completion.usage = this.#usage;
    if (this.#fingerprint !== undefined) completion.system_fingerprint = this.#fingerprint;
    return completion;
  }
}

function byIndex<T>(entries: Map<number, T>): T[] {
  return [...entries].sort(([a], [b]) => a - b).map(([, value]) => value);
}
