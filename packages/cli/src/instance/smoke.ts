import type { ChatClient } from "@finetune-studio/client";

/** The first completion can be slow: vLLM may still compile kernels or capture CUDA graphs. */
export const SMOKE_TIMEOUT_MS = 300_000;

/** A one-token completion, so that "ready" means it answers; throws what the client threw. */
export async function smokeCompletion(chat: ChatClient, model: string, signal: AbortSignal): Promise<void> {
  await chat.complete(
    { model, messages: [{ role: "user", content: "Say hello." }], max_tokens: 1 },
    { signal, timeoutMs: SMOKE_TIMEOUT_MS },
  );
}
