// The folding of chunks into a completion, case by case: what a stream's finalCompletion() returns.

import type { ChatCompletionChunk, ChatCompletionChunkChoice } from "@finetune-studio/types";
import { describe, expect, it } from "vitest";
import { ChunkAggregator } from "./aggregate.js";

const head = { id: "chatcmpl-1", object: "chat.completion.chunk" as const, created: 1, model: "m" };
const chunk = (choices: ChatCompletionChunkChoice[], extra: Partial<ChatCompletionChunk> = {}) => ({
  ...head,
  choices,
  ...extra,
});

function fold(chunks: ChatCompletionChunk[]) {
  const aggregator = new ChunkAggregator();
  for (const c of chunks) aggregator.add(c);
  return aggregator.result();
}

describe("ChunkAggregator", () => {
  it("keeps n > 1 choices apart by index, whatever order their chunks arrive in", () => {
    const completion = fold([
      chunk([{ index: 1, delta: { role: "assistant", content: "B" } }]),
      chunk([{ index: 0, delta: { role: "assistant", content: "A" } }]),
      chunk([{ index: 1, delta: { content: "b" }, finish_reason: "length" }]),
      chunk([{ index: 0, delta: { content: "a" }, finish_reason: "stop" }]),
    ]);
    expect(completion.choices.map((c) => [c.index, c.message.content, c.finish_reason])).toEqual([
      [0, "Aa", "stop"],
      [1, "Bb", "length"],
    ]);
  });

  it("takes the last usage (continuous usage stats update it on every chunk) and the fingerprint", () => {
    const usage = (completion_tokens: number) => ({
      prompt_tokens: 3,
      completion_tokens,
      total_tokens: 3 + completion_tokens,
    });
    const completion = fold([
      chunk([{ index: 0, delta: { content: "x" } }], { usage: usage(1) }),
      chunk([{ index: 0, delta: { content: "y" } }], { usage: usage(2) }),
      chunk([], { usage: usage(2), system_fingerprint: "fp-1" }),
    ]);
    expect(completion.usage).toEqual(usage(2));
    expect(completion.system_fingerprint).toBe("fp-1");
  });

  it("joins the token logprobs of every chunk", () => {
    const token = (t: string) => ({ token: t, logprob: -0.5, bytes: null, top_logprobs: [] });
    const completion = fold([
      chunk([{ index: 0, delta: { content: "a" }, logprobs: { content: [token("a")] } }]),
      chunk([{ index: 0, delta: { content: "b" }, logprobs: { content: [token("b")] } }]),
    ]);
    expect(completion.choices[0]?.logprobs?.content?.map((t) => t.token)).toEqual(["a", "b"]);
  });

  it("leaves content null when no content delta came, and keeps a tool call's first name", () => {
    const completion = fold([
      chunk([
        {
          index: 0,
          delta: { role: "assistant", tool_calls: [{ index: 0, id: "c1", function: { name: "f" } }] },
        },
      ]),
      chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { name: "f", arguments: "{}" } }] } }]),
    ]);
    expect(completion.choices[0]?.message).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }],
    });
  });

  it("is an empty completion before any chunk", () => {
    expect(fold([])).toEqual({ id: "", object: "chat.completion", created: 0, model: "", choices: [] });
  });
});
