import { readFileSync } from "node:fs";
import type { ChatCompletionRequest } from "@finetune-studio/client";
import { UsageError } from "../shared/io.js";

/** The most lines (requests) a --dataset file may hold, and its size: it is read whole. */
export const MAX_DATASET_LINES = 100_000;
export const MAX_DATASET_BYTES = 64 * 1024 * 1024;

const WORDS = ["the", "model", "serves", "every", "request", "with", "a", "short", "answer", "about", "data"];

/**
 * `count` synthetic requests of about `inputTokens` prompt tokens (one common English word is about one
 * token; the measured counts come from the server's usage) asking for exactly `outputTokens`: `max_tokens`
 * with `ignore_eos`, as vLLM's random dataset does. Each starts differently, so no prefix cache serves them.
 */
export function syntheticRequests(
  model: string,
  count: number,
  inputTokens: number,
  outputTokens: number,
): ChatCompletionRequest[] {
  return Array.from({ length: Math.min(count, 1000) }, (_, index) => {
    const words = Array.from(
      { length: Math.max(1, inputTokens - 1) },
      (__, i) => WORDS[(i * 7 + index) % WORDS.length],
    );
    return {
      model,
      messages: [{ role: "user", content: `${index} ${words.join(" ")}` }],
      max_tokens: outputTokens,
      ignore_eos: true,
    } as ChatCompletionRequest;
  });
}

/**
 * A user's own traffic: one chat request per line (an object with `messages`), the model set to the one
 * measured. A line that is not such an object is refused with its number, before anything is sent.
 */
export function datasetRequests(path: string, model: string): ChatCompletionRequest[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new UsageError(
      `--dataset: cannot read ${JSON.stringify(path)} (${(error as NodeJS.ErrnoException).code ?? error})`,
      "bench",
    );
  }
  if (Buffer.byteLength(text) > MAX_DATASET_BYTES) {
    throw new UsageError(`--dataset: must be at most ${MAX_DATASET_BYTES / 1024 / 1024} MiB`, "bench");
  }
  const requests: ChatCompletionRequest[] = [];
  text.split("\n").forEach((line, index) => {
    if (line.trim() === "") return;
    const where = `--dataset: line ${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new UsageError(`${where}: is not JSON`, "bench");
    }
    const messages = (value as { messages?: unknown } | null)?.messages;
    if (
      typeof value !== "object" ||
      value === null ||
      Array.isArray(value) ||
      !Array.isArray(messages) ||
      messages.length === 0
    ) {
      throw new UsageError(
        `${where}: must be a chat request, an object with a non-empty "messages" array`,
        "bench",
      );
    }
    if (requests.length >= MAX_DATASET_LINES)
      throw new UsageError(`--dataset: must hold at most ${MAX_DATASET_LINES} requests`, "bench");
    const { stream: _stream, stream_options: _options, ...rest } = value as Record<string, unknown>;
    requests.push({ ...rest, model } as unknown as ChatCompletionRequest);
  });
  if (requests.length === 0) throw new UsageError("--dataset: holds no request", "bench");
  return requests;
}
