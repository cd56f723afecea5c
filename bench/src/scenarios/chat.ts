// One chat completion made three ways against the same local server: raw fetch (the floor), our chat client
// and the official openai package, each with its own defaults (openai retries twice; our completions are
// not retried, since a generation costs GPU time). Retries only matter on failure: none happens here.
import { type ChatCompletionRequest, createChatClient } from "@finetune-studio/client";
import OpenAI from "openai";
import type { ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions";
import type { Scenario } from "../measure/timing.js";
import { requests } from "../server/answers.js";
import { okJson } from "./responses.js";

export function chatScenarios(baseUrl: string): Scenario[] {
  const request = requests.chatCompletion as ChatCompletionRequest;
  const body = JSON.stringify(request);
  const ours = createChatClient({ baseUrl });
  // The server ignores the key; openai refuses to start without one.
  const openai = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: "bench-key" });
  return [
    {
      caller: "raw fetch",
      call: async () =>
        okJson(
          await fetch(`${baseUrl}/v1/chat/completions`, {
            method: "POST",
            headers: { "Content-Type": "application/json" },
            body,
          }),
        ),
    },
    { caller: "@finetune-studio/client", call: () => ours.complete(request) },
    {
      caller: "openai",
      call: () =>
        openai.chat.completions.create(request as unknown as ChatCompletionCreateParamsNonStreaming),
    },
  ];
}
