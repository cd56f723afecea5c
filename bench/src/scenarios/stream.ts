// One streamed chat completion read three ways from the same local server: raw fetch reading the body
// bytes (the floor: no parsing at all), our ChatCompletionStream, and the official openai package's stream.
// Each reader checks what it read, so a broken stream can never be timed as a fast one.
import OpenAI from "openai";
import type { ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
// The stream is not on the client's public entry until the integrator wires chat.stream; then this becomes
// `createChatClient({ baseUrl }).stream(request)`.
import { ChatCompletionStream } from "../../../packages/client/dist/stream/chat-completion-stream.js";

export interface StreamReader {
  readonly reader: string;
  /** Reads a stream of `tokens` token chunks to its end; resolves with the chunks seen. */
  readAll(tokens: number): Promise<number>;
  /** Milliseconds from sending the request to the first chunk (the first body bytes for raw fetch); then drains. */
  firstChunk(tokens: number): Promise<number>;
}

const requestOf = (tokens: number) => ({
  model: "bench",
  messages: [{ role: "user" as const, content: "Count." }],
  max_tokens: tokens,
  stream: true as const,
});

export function streamReaders(baseUrl: string): StreamReader[] {
  const url = `${baseUrl}/v1/chat/completions`;
  const post = (tokens: number) =>
    fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(requestOf(tokens)),
    });
  const openai = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: "bench-key", maxRetries: 0 });
  const openStream = (tokens: number) =>
    openai.chat.completions.create(requestOf(tokens) as ChatCompletionCreateParamsStreaming);
  const ours = async (tokens: number) => ChatCompletionStream.fromResponse(await post(tokens));

  /** Reads an iterator to its end, counting; `expected` chunks (role, tokens, finish) or it throws. */
  const drain = async (chunks: AsyncIterator<unknown>, seen: number, expected: number) => {
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) seen++;
    if (seen !== expected) throw new Error(`read ${seen} chunks, expected ${expected}`);
    return seen;
  };

  return [
    {
      reader: "raw fetch (bytes, no parsing)",
      async readAll(tokens) {
        const response = await post(tokens);
        const reader = (response.body as ReadableStream<Uint8Array>).getReader();
        let bytes = 0;
        for (let next = await reader.read(); !next.done; next = await reader.read())
          bytes += next.value.byteLength;
        if (bytes === 0) throw new Error("empty stream");
        return tokens + 2;
      },
      async firstChunk() {
        const started = performance.now();
        const reader = ((await post(4)).body as ReadableStream<Uint8Array>).getReader();
        const first = await reader.read();
        const elapsed = performance.now() - started;
        if (first.done) throw new Error("empty stream");
        while (!(await reader.read()).done);
        return elapsed;
      },
    },
    {
      reader: "@finetune-studio/client",
      readAll: async (tokens) => drain((await ours(tokens))[Symbol.asyncIterator](), 0, tokens + 2),
      async firstChunk() {
        const started = performance.now();
        const chunks = (await ours(4))[Symbol.asyncIterator]();
        if ((await chunks.next()).done) throw new Error("empty stream");
        const elapsed = performance.now() - started;
        await drain(chunks, 1, 6);
        return elapsed;
      },
    },
    {
      reader: "openai",
      readAll: async (tokens) => drain((await openStream(tokens))[Symbol.asyncIterator](), 0, tokens + 2),
      async firstChunk() {
        const started = performance.now();
        const chunks = (await openStream(4))[Symbol.asyncIterator]();
        if ((await chunks.next()).done) throw new Error("empty stream");
        const elapsed = performance.now() - started;
        await drain(chunks, 1, 6);
        return elapsed;
      },
    },
  ];
}
