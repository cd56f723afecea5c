// One chat completion made four ways against the same local server: raw fetch (the floor), raw fetch with a
// timeout (what any client that gives up on a silent server pays: its own abort signal, which fetch then
// follows), our chat client and the official openai package, each with its own defaults (openai retries
// twice; our completions are not retried, since a generation costs GPU time). Retries only matter on
// failure: none happens here. Each caller holds the request as an object and writes it as JSON per call.
import { type ChatCompletionRequest, createChatClient } from "@finetune-studio/client";
import OpenAI from "openai";
import type { ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions";
import type { Scenario } from "../measure/timing.js";
import { requests } from "../server/answers.js";
import { okJson } from "./responses.js";

export function chatScenarios(baseUrl: string): Scenario[] {
  const request = requests.chatCompletion as ChatCompletionRequest;
  const post = (signal?: AbortSignal) =>
    fetch(`${baseUrl}/v1/chat/completions`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(request),
      ...(signal ? { signal } : {}),
    });
  const ours = createChatClient({ baseUrl });
  // The server ignores the key; openai refuses to start without one.
  const openai = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: "bench-key" });
  return [
    { caller: "raw fetch", call: async () => okJson(await post()) },
    {
      // Our client's default per-attempt timeout for chat, 10 minutes.
      caller: "raw fetch + timeout signal",
      call: async () => okJson(await post(AbortSignal.timeout(600_000))),
      baseline: true,
    },
    { caller: "@finetune-studio/client", call: () => ours.complete(request) },
    {
      caller: "openai",
      call: () =>
        openai.chat.completions.create(request as unknown as ChatCompletionCreateParamsNonStreaming),
    },
  ];
}
