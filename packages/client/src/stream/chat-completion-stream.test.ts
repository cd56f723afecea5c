// chat streaming against a real node:http server sending vLLM's exact stream, framed every hostile way,
// read by our ChatCompletionStream and by the official openai package side by side.
import { chatSchema } from "@finetune-studio/testing";
import type { ChatCompletionChunk } from "@finetune-studio/types";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { StudioConnectionError, StudioError, StudioStreamError, StudioTimeoutError } from "../errors.js";
import { expectSecretNowhere } from "../test/no-secret.js";
import {
  bytesOf,
  endlessStream,
  type Script,
  SSE_HEADERS,
  type SseServer,
  splitInsideCharacter,
  sseServersClosedAfterEach,
  writePieces,
} from "../test/sse-stream-server.js";
import {
  errorEvent,
  frame,
  MODEL,
  reasoningEvents,
  TEXT_DELTAS,
  textEvents,
  toolCallEvents,
} from "../test/vllm-stream.js";
import {
  type ChatCompletionStream,
  type ChatCompletionStreamOptions,
  ChatCompletionStream as Stream,
} from "./chat-completion-stream.js";

const CANARY = "sk-canary-3b9f1e7a-do-not-leak";
const request = {
  model: MODEL,
  messages: [{ role: "user" as const, content: "How do I reset my password?" }],
  stream: true as const,
  stream_options: { include_usage: true },
};
/** Generous for a loaded machine: a wait that must end, not a timing under test. */
const WAIT_MS = 10_000;
/** Writing a stream one byte at a time takes seconds on a loaded machine. */
const TEST_TIMEOUT_MS = 60_000;

const serve = sseServersClosedAfterEach();

/** A script that writes the SSE head, then `pieces` one write each, then ends the response. */
function streams(pieces: readonly (string | Buffer)[]): Script {
  return async (response) => {
    response.writeHead(200, SSE_HEADERS);
    await writePieces(response, pieces);
    response.end();
  };
}

async function ours(
  server: SseServer,
  options: ChatCompletionStreamOptions = {},
): Promise<ChatCompletionStream> {
  const response = await fetch(`${server.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${CANARY}` },
    body: JSON.stringify(request),
  });
  return Stream.fromResponse(response, { secrets: [CANARY], ...options });
}

async function theirs(server: SseServer): Promise<AsyncIterable<ChatCompletionChunk>> {
  const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: CANARY, maxRetries: 0 });
  return (await client.chat.completions.create(request)) as unknown as AsyncIterable<ChatCompletionChunk>;
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

/** Reads until the stream fails; returns what arrived before and the error. */
async function collectUntilFailure<T>(iterable: AsyncIterable<T>): Promise<{ items: T[]; error: unknown }> {
  const items: T[] = [];
  try {
    for await (const item of iterable) items.push(item);
  } catch (error) {
    return { items, error };
  }
  throw new Error(`expected the stream to fail; it ended after ${items.length} items`);
}

function deltas(chunks: readonly ChatCompletionChunk[]): string[] {
  return chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? "");
}

const within = <T>(promise: Promise<T>, what: string) =>
  Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} did not happen`)), WAIT_MS)),
  ]);

describe("vLLM's stream, framed every hostile way", { timeout: TEST_TIMEOUT_MS }, () => {
  const events = textEvents();
  const body = frame(events);
  const perEvent = body.split(/(?<=\n\n)/);
  const framings: [string, readonly (string | Buffer)[]][] = [
    ["one write per event", perEvent],
    ["one byte per write", bytesOf(body)],
    ["a 4-byte UTF-8 character split across writes", splitInsideCharacter(body, "🔐")],
    ["a 3-byte UTF-8 character split across writes", splitInsideCharacter(body, "→")],
    ["CRLF line ends", perEvent.map((piece) => piece.replaceAll("\n", "\r\n"))],
    ["CR line ends", perEvent.map((piece) => piece.replaceAll("\n", "\r"))],
    [
      ": keep-alive comments between and inside events",
      perEvent.flatMap((piece) => [": keep-alive\n\n", `:ping\n${piece}`]),
    ],
    [
      "several data: lines in one event",
      events
        .map((data) => `data: ${data.replace(',"choices":', ',\ndata: "choices":')}\n\n`)
        .concat("data: [DONE]\n\n"),
    ],
    ["the whole stream in one write", [body]],
  ];

  it.each(framings)("%s: every chunk, as openai reads them too", async (_, pieces) => {
    const server = await serve(streams(pieces));
    const chunks = await collect(await ours(server));
    expect(chunks).toEqual(events.map((data) => JSON.parse(data)));
    expect(deltas(chunks).join("")).toBe(TEXT_DELTAS.join(""));

    const openaiChunks = await collect(await theirs(server));
    expect(deltas(openaiChunks)).toEqual(deltas(chunks));
    expect(openaiChunks).toEqual(chunks);
  });
});

describe("what a stream offers", { timeout: TEST_TIMEOUT_MS }, () => {
  it("textStream() yields the content deltas alone", async () => {
    const server = await serve(streams([frame(textEvents())]));
    expect(await collect((await ours(server)).textStream())).toEqual(TEXT_DELTAS);
  });

  it("finalCompletion() assembles the reply and takes the usage from the usage-only final chunk", async () => {
    const server = await serve(streams([frame(textEvents())]));
    const completion = await (await ours(server)).finalCompletion();
    expect(completion).toEqual({
      id: "chatcmpl-8c1f2e9a7b6d4c3e",
      object: "chat.completion",
      created: 1763892000,
      model: MODEL,
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: TEXT_DELTAS.join("") },
          finish_reason: "stop",
          stop_reason: null,
        },
      ],
      usage: { prompt_tokens: 21, total_tokens: 26, completion_tokens: 5 },
    });
  });

  it("finalCompletion() after a full loop gives the same completion the loop saw", async () => {
    const server = await serve(streams([frame(textEvents())]));
    const stream = await ours(server);
    const seen = deltas(await collect(stream)).join("");
    expect((await stream.finalCompletion()).choices[0]?.message.content).toBe(seen);
  });

  it("finalCompletion() assembles parallel tool calls from their interleaved fragments by index", async () => {
    const server = await serve(streams(bytesOf(frame(toolCallEvents()))));
    const completion = await (await ours(server)).finalCompletion();
    expect(completion.choices[0]).toEqual({
      index: 0,
      message: {
        role: "assistant",
        content: "",
        tool_calls: [
          {
            id: "chatcmpl-tool-a1",
            type: "function",
            function: { name: "get_weather", arguments: '{"city": "Zürich"}' },
          },
          {
            id: "chatcmpl-tool-b2",
            type: "function",
            function: { name: "get_time", arguments: '{"zone": "Europe/Zurich"}' },
          },
        ],
      },
      finish_reason: "tool_calls",
      stop_reason: null,
    });
    expect(completion.usage?.completion_tokens).toBe(18);
    expect(await collect(await theirs(server))).toEqual(toolCallEvents().map((data) => JSON.parse(data)));
  });

  it.each(["reasoning", "reasoning_content"] as const)(
    "finalCompletion() keeps the %s apart from the content",
    async (field) => {
      const server = await serve(streams([frame(reasoningEvents(field))]));
      const stream = await ours(server);
      const completion = await stream.finalCompletion();
      expect(completion.choices[0]?.message).toEqual({
        role: "assistant",
        content: "Open Settings.",
        [field]: "The user wants the reset steps.",
      });
      expect(completion.choices[0]?.finish_reason).toBe("length");
      expect(completion.usage).toBeUndefined();
    },
  );

  it("is read once: a second loop throws, and a stopped loop leaves no final completion", async () => {
    const server = await serve(streams([frame(textEvents())]));
    const stream = await ours(server);
    for await (const _ of stream) break;
    expect(() => stream[Symbol.asyncIterator]()).toThrow(StudioError);
    expect(() => stream.textStream()).toThrow(/read only once/);
    await expect(stream.finalCompletion()).rejects.toThrow(/closed before its end/);
  });
});

describe("failures inside a 200", { timeout: TEST_TIMEOUT_MS }, () => {
  it("an error object after a 200 rejects with a StudioStreamError carrying the server's message, scrubbed", async () => {
    const message = `engine dead while serving key ${CANARY}`;
    const events = [...textEvents().slice(0, 3), errorEvent(message)];
    const server = await serve(streams([frame(events)]));

    const { items, error } = await collectUntilFailure(await ours(server));
    expect(deltas(items)).toEqual(["", ...TEXT_DELTAS.slice(0, 2)]);
    expect(error).toBeInstanceOf(StudioStreamError);
    expect(error).toBeInstanceOf(StudioError);
    const streamError = error as StudioStreamError;
    expect(streamError.serverError).toEqual({
      message: "engine dead while serving key [redacted]",
      type: "InternalServerError",
      code: 500,
      param: undefined,
    });
    expect(streamError.message).toContain("engine dead while serving key [redacted]");
    expectSecretNowhere(error, CANARY);

    // openai stops at the same place and throws too.
    const theirsResult = await collectUntilFailure(await theirs(server));
    expect(deltas(theirsResult.items)).toEqual(deltas(items));
    expect(theirsResult.error).toBeInstanceOf(OpenAI.APIError);
  });

  it("a stream that ends before [DONE] is a StudioConnectionError, where openai ends quietly", async () => {
    const server = await serve(streams([frame(textEvents().slice(0, 3), { done: false })]));
    const { items, error } = await collectUntilFailure(await ours(server));
    expect(items).toHaveLength(3);
    expect(error).toBeInstanceOf(StudioConnectionError);
    expect((error as Error).message).toContain("before the stream's end");

    expect(deltas(await collect(await theirs(server)))).toEqual(deltas(items));
  });

  it("a connection cut in the middle of an event is a StudioConnectionError with the fetch error as cause", async () => {
    const body = frame(textEvents());
    const server = await serve(async (response) => {
      response.writeHead(200, SSE_HEADERS);
      await writePieces(response, [body.slice(0, body.length / 2)]);
      response.socket?.destroy();
    });
    const { error } = await collectUntilFailure(await ours(server));
    expect(error).toBeInstanceOf(StudioConnectionError);
    expect((error as Error).cause).toBeDefined();
  });

  it("no chunk for timeoutMs is a StudioTimeoutError, and the connection is closed", async () => {
    const events = textEvents();
    const server = await serve(async (response) => {
      response.writeHead(200, SSE_HEADERS);
      await writePieces(response, [frame(events.slice(0, 2), { done: false }), ": still here\n\n"]);
      // Then a stall: no chunk, only the keep-alive comment above, and the socket left open.
    });
    const { items, error } = await collectUntilFailure(await ours(server, { timeoutMs: 300 }));
    expect(items).toHaveLength(2);
    expect(error).toBeInstanceOf(StudioTimeoutError);
    expect((error as StudioTimeoutError).timeoutMs).toBe(300);
    await within(server.requests[0]?.closed as Promise<void>, "the socket closing");
  });

  it("time the caller spends holding a chunk does not count toward timeoutMs", async () => {
    const server = await serve(streams([frame(textEvents())]));
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of await ours(server, { timeoutMs: 100 })) {
      chunks.push(chunk);
      if (chunks.length === 1) await new Promise((resolve) => setTimeout(resolve, 400));
    }
    expect(chunks).toHaveLength(textEvents().length);
  });

  it("an event over maxEventSize is refused, even as one endless line, and the connection closed", async () => {
    const server = await serve(async (response) => {
      response.writeHead(200, SSE_HEADERS);
      await writePieces(response, [frame(textEvents().slice(0, 1), { done: false }), "data: {"]);
      for (let i = 0; i < 100 && !response.destroyed; i++) await writePieces(response, ["x".repeat(1024)]);
    });
    const { items, error } = await collectUntilFailure(await ours(server, { maxEventSize: 16_384 }));
    expect(items).toHaveLength(1);
    expect(error).toBeInstanceOf(StudioStreamError);
    expect((error as Error).message).toContain("larger than 16384 characters");
    await within(server.requests[0]?.closed as Promise<void>, "the socket closing");
  });

  it("a 200,000-deep payload is a StudioStreamError naming the nesting, not a RangeError", async () => {
    const deep = `${"[".repeat(200_000)}${"]".repeat(200_000)}`;
    const server = await serve(streams([frame([textEvents()[0] as string, deep])]));
    const { items, error } = await collectUntilFailure(await ours(server));
    expect(items).toHaveLength(1);
    expect(error).toBeInstanceOf(StudioStreamError);
    expect((error as Error).message).toContain("nested more than 512 levels deep");
  });

  it.each([
    ["not JSON", "{oops", "not JSON"],
    ["JSON that is not an object", "[1, 2]", "not a JSON object (array)"],
    ["an object without choices", '{"object": "chat.completion.chunk"}', "no choices array"],
  ])("an event that is %s is a StudioStreamError", async (_, data, says) => {
    const server = await serve(streams([frame([data])]));
    const { error } = await collectUntilFailure(await ours(server));
    expect(error).toBeInstanceOf(StudioStreamError);
    expect((error as Error).message).toContain(says);
    expect((error as StudioStreamError).serverError).toBeUndefined();
  });

  it.each([
    ["timeoutMs", -1, "number -1"],
    ["timeoutMs", 2 ** 31, "number 2147483648"],
    ["maxEventSize", 1.5, "number 1.5"],
    ["maxEventSize", "1MB", "string"],
  ])("options.%s = %j is refused, naming the field", async (field, value, received) => {
    const server = await serve(streams([frame(textEvents())]));
    await expect(ours(server, { [field]: value })).rejects.toMatchObject({
      name: "StudioValidationError",
      field: `stream options.${field}`,
      rule: "must be an integer from 1 to 2147483647",
      received,
    });
  });

  it("a 200 that is not text/event-stream is refused before reading", async () => {
    const server = await serve((response) => {
      response.writeHead(200, { "content-type": "application/json" }).end('{"choices": []}');
    });
    await expect(ours(server)).rejects.toThrow(/application\/json where a text\/event-stream was expected/);
  });
});

describe("closing the connection", { timeout: TEST_TIMEOUT_MS }, () => {
  it("a stream read to [DONE] leaves its connection open for the next request", async () => {
    // The end of the body comes a moment after [DONE], in its own packet: the stream waits for it.
    const server = await serve(async (response) => {
      response.writeHead(200, SSE_HEADERS);
      await writePieces(response, [frame(textEvents())]);
      setTimeout(() => response.end(), 30);
    });
    for (let i = 0; i < 3; i++) {
      await (await ours(server)).finalCompletion();
      // fetch hands a finished connection back to its pool a moment after the body ends; on a loaded CI
      // machine 50 ms was not always that moment (it failed once with [1, 1, 2]).
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(server.requests.map((request) => request.connection)).toEqual([1, 1, 1]);
  });

  it("bytes after [DONE] close the connection rather than being read", async () => {
    const server = await serve(async (response) => {
      response.writeHead(200, SSE_HEADERS);
      await writePieces(response, [frame(textEvents())]);
      while (!response.destroyed) await writePieces(response, [": more after the end\n\n"]);
    });
    await (await ours(server)).finalCompletion();
    await within(server.requests[0]?.closed as Promise<void>, "the socket closing");
  });

  it("breaking out of the loop closes the connection", async () => {
    const server = await serve(endlessStream);
    let seen = 0;
    for await (const _ of await ours(server)) if (++seen === 3) break;
    await within(server.requests[0]?.closed as Promise<void>, "the socket closing");
  });

  it("returning the iterator before reading closes the connection and rejects finalCompletion()", async () => {
    const server = await serve(endlessStream);
    const stream = await ours(server);
    await stream[Symbol.asyncIterator]().return?.();
    await within(server.requests[0]?.closed as Promise<void>, "the socket closing");
    await expect(stream.finalCompletion()).rejects.toThrow(/closed before its end/);
  });

  it("breaking out of textStream() closes the connection", async () => {
    const server = await serve(endlessStream);
    for await (const _ of (await ours(server)).textStream()) break;
    await within(server.requests[0]?.closed as Promise<void>, "the socket closing");
  });

  it("aborting the signal rejects with its reason and closes the connection", async () => {
    const server = await serve(endlessStream);
    const controller = new AbortController();
    const reason = new Error("user left the page");
    const stream = await ours(server, { signal: controller.signal });
    const chunks: ChatCompletionChunk[] = [];
    const error = await (async () => {
      try {
        for await (const chunk of stream) {
          chunks.push(chunk);
          if (chunks.length === 2) setTimeout(() => controller.abort(reason), 10);
        }
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBe(reason);
    await within(server.requests[0]?.closed as Promise<void>, "the socket closing");
  });

  it("a signal aborted before reading rejects at once", async () => {
    const server = await serve(endlessStream);
    const stream = await ours(server, { signal: AbortSignal.abort() });
    await expect(stream.finalCompletion()).rejects.toMatchObject({ name: "AbortError" });
    await within(server.requests[0]?.closed as Promise<void>, "the socket closing");
  });
});

describe("the streams under test are the contract's", { timeout: TEST_TIMEOUT_MS }, () => {
  const streamEvent = chatSchema("ChatCompletionStreamEvent");
  const completionSchema = chatSchema("ChatCompletion");

  it.each([
    ["a text reply", textEvents()],
    ["parallel tool calls", toolCallEvents()],
    ["reasoning", reasoningEvents()],
    ["reasoning_content (older servers)", reasoningEvents("reasoning_content")],
    ["an error after the 200", [errorEvent("engine dead")]],
  ])("%s: every event is a ChatCompletionStreamEvent", (_, events) => {
    for (const data of events)
      expect(streamEvent(JSON.parse(data)), streamEvent.problems.join("; ")).toBe(true);
  });

  it.each([
    ["a text reply", textEvents()],
    ["parallel tool calls", toolCallEvents()],
  ])("%s: the final completion is a ChatCompletion", async (_, events) => {
    const server = await serve(streams([frame(events)]));
    const completion = await (await ours(server)).finalCompletion();
    expect(completionSchema(completion), completionSchema.problems.join("; ")).toBe(true);
  });
});
