import {
  type ChatClient,
  type ChatCompletionRequest,
  StudioApiError,
  StudioConnectionError,
  StudioStreamError,
  StudioTimeoutError,
} from "@finetune-studio/client";
import type { BenchRequestRecord } from "@finetune-studio/serve-kit";
import { errorText } from "../shared/messages.js";

/**
 * Sends one streamed chat request and times it as vLLM's benchmark client does
 * (`async_request_openai_chat_completions` in vllm/benchmarks/lib/endpoint_request_func.py at 009e6d4a1cd6):
 * the first chunk with choices sets TTFT, each later one adds a gap to ITL, the usage chunk gives the token
 * counts, and the latency runs to the last chunk received.
 */
export async function measureRequest(
  chat: ChatClient,
  request: ChatCompletionRequest,
  options: {
    startMs: number;
    signal: AbortSignal;
    timeoutMs: number;
    secrets: readonly string[];
    /** Hears the answer's text as it streams (a conversation appends it to its history). */
    onText?: (text: string) => void;
  },
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
        const text = chunk.choices[0]?.delta?.content;
        if (typeof text === "string") options.onText?.(text);
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
    if (first) return { ...record, failure: "no-tokens", error: NO_TOKENS };
    // Token counts come from the server, never from the text: a server that sends none is not measured.
    if (!usage) return { ...record, failure: "no-usage", error: NO_USAGE };
    return { ...record, ok: true };
  } catch (error) {
    return {
      ...record,
      latencyMs: performance.now() - sent,
      failure: failureKind(error, options.signal),
      error: options.signal.aborted ? CANCELLED : failureReason(error, options.secrets),
    };
  }
}

const NO_TOKENS = "the stream ended without a content chunk";
const NO_USAGE = "the stream sent no usage chunk (stream_options.include_usage), so no token count";
const CANCELLED = "the run was stopped";

/** The most a failure reason keeps, in characters: enough for the server's own sentence. */
export const MAX_REASON_LENGTH = 300;

/**
 * Why a request failed, in words fit for records.jsonl and a summary: the client's message (which already
 * scrubs the key it sent), on one line, with the key, any Authorization value and any bearer token a server
 * echoed written as [redacted], cut to MAX_REASON_LENGTH characters.
 */
export function failureReason(error: unknown, secrets: readonly string[]): string {
  let text = errorText(error);
  for (const secret of secrets) if (secret !== "") text = text.replaceAll(secret, "[redacted]");
  text = text
    .replace(/(authorization["']?\s*[:=]\s*["']?)(?:(?:bearer|basic|token)\s+)?[^\s"',;]+/gi, "$1[redacted]")
    .replace(/\bbearer\s+(?!\[redacted\])[^\s"',;]+/gi, "Bearer [redacted]")
    // Control characters and line breaks (a server's stack trace) become spaces: one line per reason.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\s]+/g, " ")
    .trim();
  const characters = Array.from(text);
  return characters.length > MAX_REASON_LENGTH
    ? `${characters.slice(0, MAX_REASON_LENGTH - 1).join("")}…`
    : text;
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
