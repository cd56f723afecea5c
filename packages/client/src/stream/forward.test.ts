// Forwarding a stream one hop (your server to a browser): toReadableStream() on the server, read on the
// far side by ChatCompletionStream.fromReadableStream or by the openai package, through real HTTP.

import type { ChatCompletionChunk } from "@finetune-studio/types";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { StudioStreamError } from "../errors.js";
import {
  endlessStream,
  type Script,
  SSE_HEADERS,
  type SseServer,
  sseServersClosedAfterEach,
  writePieces,
} from "../test/sse-stream-server.js";
import { errorEvent, frame, MODEL, TEXT_DELTAS, textEvents, toolCallEvents } from "../test/vllm-stream.js";
import { ChatCompletionStream } from "./chat-completion-stream.js";

const CANARY = "sk-canary-77c1d0e4-do-not-leak";
const request = { model: MODEL, messages: [{ role: "user" as const, content: "Hi" }], stream: true as const };
const WAIT_MS = 10_000;
/** Writing a stream one byte at a time takes seconds on a loaded machine. */
const TEST_TIMEOUT_MS = 60_000;

const serve = sseServersClosedAfterEach();

const upstreamSends =
  (body: string): Script =>
  async (response) => {
    response.writeHead(200, SSE_HEADERS);
    await writePieces(response, body.split(/(?<=\n\n)/));
    response.end();
  };

/** Your server: streams from `upstream` and returns toReadableStream() as its own answer. */
async function relay(upstream: SseServer): Promise<SseServer> {
  return serve(async (response) => {
    const answer = await fetch(`${upstream.url}/v1/chat/completions`, { method: "POST", body: "{}" });
    const body = ChatCompletionStream.fromResponse(answer, { secrets: [CANARY] }).toReadableStream();
    const reader = body.getReader();
    // The browser went away: cancelling the forwarded stream closes the upstream connection.
    response.once("close", () => void reader.cancel().catch(() => undefined));
    response.writeHead(200, SSE_HEADERS);
    for (let next = await reader.read(); !next.done; next = await reader.read()) response.write(next.value);
    response.end();
  });
}

async function farSide(server: SseServer): Promise<ChatCompletionStream> {
  const response = await fetch(`${server.url}/v1/chat/completions`, { method: "POST", body: "{}" });
  return ChatCompletionStream.fromReadableStream(response.body as ReadableStream<Uint8Array>);
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

describe("toReadableStream / fromReadableStream", { timeout: TEST_TIMEOUT_MS }, () => {
  it("re-frames the chunks exactly as vLLM sent them, then data: [DONE]", async () => {
    const upstream = await serve(upstreamSends(frame(textEvents())));
    const answer = await fetch(`${upstream.url}/v1/chat/completions`, { method: "POST", body: "{}" });
    const bytes = await new Response(ChatCompletionStream.fromResponse(answer).toReadableStream()).text();
    expect(bytes).toBe(frame(textEvents()));
  });

  it("the far side reads every chunk and the final completion, and so does openai", async () => {
    const upstream = await serve(upstreamSends(frame(toolCallEvents())));
    const app = await relay(upstream);
    const completion = await (await farSide(app)).finalCompletion();
    expect(completion.choices[0]?.message.tool_calls?.map((call) => call.function.name)).toEqual([
      "get_weather",
      "get_time",
    ]);

    const client = new OpenAI({ baseURL: `${app.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const theirs = await collect(
      (await client.chat.completions.create(request)) as unknown as AsyncIterable<ChatCompletionChunk>,
    );
    expect(theirs).toEqual(toolCallEvents().map((data) => JSON.parse(data)));
  });

  it("an upstream error event reaches the far side as a StudioStreamError with the scrubbed server error", async () => {
    const events = [...textEvents().slice(0, 2), errorEvent(`bad key ${CANARY}`)];
    const upstream = await serve(upstreamSends(frame(events)));
    const far = await farSide(await relay(upstream));
    const texts: string[] = [];
    const error = await (async () => {
      try {
        for await (const text of far.textStream()) texts.push(text);
      } catch (caught) {
        return caught;
      }
    })();
    expect(texts).toEqual(TEXT_DELTAS.slice(0, 1));
    expect(error).toBeInstanceOf(StudioStreamError);
    expect((error as StudioStreamError).serverError).toMatchObject({
      message: "bad key [redacted]",
      type: "InternalServerError",
      code: 500,
    });
  });

  it("an upstream cut reaches the far side as an error event naming it, not as a quiet end", async () => {
    const upstream = await serve(upstreamSends(frame(textEvents().slice(0, 2), { done: false })));
    const far = await farSide(await relay(upstream));
    await expect(far.finalCompletion()).rejects.toMatchObject({
      name: "StudioStreamError",
      serverError: { type: "StudioConnectionError" },
    });
  });

  it("the far side breaking off closes the upstream connection", async () => {
    const upstream = await serve(endlessStream);
    const app = await relay(upstream);
    let seen = 0;
    for await (const _ of await farSide(app)) if (++seen === 3) break;
    await Promise.race([
      upstream.requests[0]?.closed,
      new Promise((_, reject) => setTimeout(() => reject(new Error("upstream still open")), WAIT_MS)),
    ]);
  });
});
