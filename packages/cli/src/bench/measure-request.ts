import {
  type ChatClient,
  type ChatCompletionRequest,
  StudioApiError,
  StudioConnectionError,
  StudioStreamError,
  StudioTimeoutError,
} from "@finetune-studio/client";
import type { BenchRequestRecord } from "@finetune-studio/serve-kit";

/**
 * Sends one streamed chat request and times it as vLLM's benchmark client does
 * (`async_request_openai_chat_completions` in vllm/benchmarks/lib/endpoint_request_func.py at 009e6d4a1cd6):
 * the first chunk with choices sets TTFT, each later one adds a gap to ITL, the usage chunk gives the token
 * counts, and the latency runs to the last chunk received.
 */
export async function measureRequest(
  chat: ChatClient,
  request: ChatCompletionRequest,
  options: { startMs: number; signal: AbortSignal; timeoutMs: number },
): Promise<BenchRequestRecord> {
  const sent = performance.now();
  const record: BenchRequestRecord & { itlMs: number[] } = {
    ok: false,
    startMs: options.startMs,
    ttftMs: 0,
    itlMs: [],
    latencyMs: 0,
    promptTokens: 0,
    outputTokens: 0,
  };
  let last = sent;
  let first = true;
  let usage = false;
  try {
    const stream = await chat.stream(
      { ...request, stream_options: { include_usage: true } },
      { signal: options.signal, timeoutMs: options.timeoutMs },
    );
    for await (const chunk of stream) {
      const now = performance.now();
      if (chunk.choices.length > 0) {
        if (first) record.ttftMs = now - sent;
        else record.itlMs.push(now - last);
        first = false;
      }
      if (chunk.usage) {
        record.promptTokens = chunk.usage.prompt_tokens;
        record.outputTokens = chunk.usage.completion_tokens ?? 0;
        usage = true;
      }
      last = now;
    }
    record.latencyMs = last - sent;
    if (first) return { ...record, failure: "no-tokens" };
    // Token counts come from the server, never from the text: a server that sends none is not measured.
    if (!usage) return { ...record, failure: "no-usage" };
    return { ...record, ok: true };
  } catch (error) {
    return { ...record, latencyMs: performance.now() - sent, failure: failureKind(error, options.signal) };
  }
}

/** A short name for why a request failed, to count failures by kind. */
export function failureKind(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return "cancelled";
  if (error instanceof StudioApiError) return `http-${error.status}`;
  if (error instanceof StudioTimeoutError) return "timeout";
  if (error instanceof StudioStreamError) return "stream-error";
  if (error instanceof StudioConnectionError) return "connection";
  return "error";
}
