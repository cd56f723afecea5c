import type { ChatCompletionChunk } from "@finetune-studio/types";
import { createParser, type EventSourceMessage, type ParseError } from "eventsource-parser";
import {
  StudioConnectionError,
  StudioError,
  StudioStreamError,
  StudioTimeoutError,
  StudioValidationError,
} from "../errors.js";
import { ChunkAggregator } from "./aggregate.js";
import { encodeServerSentEvents } from "./forward.js";
import { parseChunk, type StreamSource } from "./parse-chunk.js";
import type { StreamedChatCompletion } from "./streamed-completion.js";

// A streamed chat completion: the body of a `text/event-stream` answer read as chunks, once. It owns the
// connection: breaking out of the loop, the caller's signal, an idle timeout or a malformed event cancels
// the body, which closes the connection. It ends only at `data: [DONE]`; a body that stops before that is
// a StudioConnectionError, never a quiet end. Nothing here retries: a stream that started cannot be replayed.

export interface ChatCompletionStreamOptions {
  /** Aborting it stops the stream at once and closes the connection; the iteration rejects with its reason. */
  signal?: AbortSignal | undefined;
  /** The most milliseconds to wait for the next chunk (the first one included); a StudioTimeoutError then. */
  timeoutMs?: number | undefined;
  /** The most characters one event may hold (a partial line included). Default 1 MiB (1,048,576). */
  maxEventSize?: number | undefined;
  /** The request, for error messages. Default `POST`. */
  method?: string | undefined;
  /** The request, for error messages. Default `/v1/chat/completions` (`(forwarded stream)` from a ReadableStream). */
  path?: string | undefined;
  /** Strings (an API key) scrubbed from anything the server says before it reaches an error. */
  secrets?: readonly string[] | undefined;
}

export const DEFAULT_MAX_EVENT_SIZE = 1_048_576;
/** How long the end of the body may lag behind `data: [DONE]` before the connection is closed instead. */
const AFTER_DONE_GRACE_MS = 100;

type State = "unread" | "reading" | "done" | "failed";

export class ChatCompletionStream implements AsyncIterable<ChatCompletionChunk> {
  readonly #body: ReadableStream<Uint8Array>;
  readonly #source: StreamSource;
  readonly #options: ChatCompletionStreamOptions;
  readonly #aggregate = new ChunkAggregator();
  #state: State = "unread";
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  /** Why the stream was stopped from outside the read loop (signal, timeout); thrown by the loop. */
  #stopped: unknown;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #lastChunkAt = 0;
  /** True while the caller holds a chunk: the idle timeout measures only the server's silence. */
  #suspended = false;
  /** The raw payload of the last chunk yielded, forwarded as is by toReadableStream. */
  #lastData = "";
  #ended: Promise<StreamedChatCompletion>;
  #settle!: { resolve(completion: StreamedChatCompletion): void; reject(error: unknown): void };

  private constructor(
    body: ReadableStream<Uint8Array>,
    source: StreamSource,
    options: ChatCompletionStreamOptions,
  ) {
    this.#body = body;
    this.#source = source;
    this.#options = options;
    this.#ended = new Promise((resolve, reject) => {
      this.#settle = { resolve, reject };
    });
    // Nobody may ask for the final completion: its failure must not be an unhandled rejection.
    this.#ended.catch(() => undefined);
    options.signal?.addEventListener("abort", this.#onAbort, { once: true });
    if (options.signal?.aborted) this.#onAbort();
  }

  /** Reads a `text/event-stream` answer to a chat completion (`stream: true`). */
  static fromResponse(response: Response, options: ChatCompletionStreamOptions = {}): ChatCompletionStream {
    const { body } = response;
    try {
      const source = sourceOf(options, "/v1/chat/completions");
      const type = response.headers.get("content-type") ?? "no content type";
      if (body === null || !/^text\/event-stream/i.test(type)) {
        const { method, path } = source;
        throw new StudioStreamError(
          `${method} ${path} answered ${response.status} with ${body === null ? "no body" : type} where a text/event-stream was expected`,
          { method, path },
        );
      }
      return new ChatCompletionStream(body, source, options);
    } catch (error) {
      // Refused: the body is not read, so its connection is closed.
      void body?.cancel().catch(() => undefined);
      throw error;
    }
  }

  /** Reads what `toReadableStream()` produced on the other side of a hop (a browser reading your server). */
  static fromReadableStream(
    body: ReadableStream<Uint8Array>,
    options: ChatCompletionStreamOptions = {},
  ): ChatCompletionStream {
    return new ChatCompletionStream(body, sourceOf(options, "(forwarded stream)"), options);
  }

  /** Every chunk, in order. A stream is read once: a second iteration throws. */
  [Symbol.asyncIterator](): AsyncIterator<ChatCompletionChunk> {
    if (this.#state !== "unread") {
      throw new StudioError(
        "a ChatCompletionStream can be read only once; use finalCompletion() for the whole",
      );
    }
    this.#state = "reading";
    return this.#read();
  }

  /** The content deltas of choice 0, as text. Reads the stream. */
  textStream(): AsyncIterable<string> {
    const chunks = this[Symbol.asyncIterator]();
    return {
      async *[Symbol.asyncIterator]() {
        try {
          for (let next = await chunks.next(); !next.done; next = await chunks.next()) {
            for (const choice of next.value.choices) {
              const text = choice.index === 0 ? choice.delta?.content : undefined;
              if (typeof text === "string" && text !== "") yield text;
            }
          }
        } finally {
          await chunks.return?.();
        }
      },
    };
  }

  /**
   * The completion assembled from every chunk: content, reasoning, tool calls, finish_reason, usage. Reads
   * the stream to its end if nobody is reading it; otherwise waits for the reader to reach the end (and
   * rejects if it stopped early or failed).
   */
  async finalCompletion(): Promise<StreamedChatCompletion> {
    if (this.#state === "unread") for await (const _ of this);
    return this.#ended;
  }

  /**
   * The stream as `text/event-stream` bytes, each chunk as the server sent it, then `data: [DONE]`: return
   * it from a server route and read it in the browser with `ChatCompletionStream.fromReadableStream`.
   * Cancelling it (the browser went away) closes the upstream connection.
   */
  toReadableStream(): ReadableStream<Uint8Array> {
    return encodeServerSentEvents(this[Symbol.asyncIterator](), () => this.#lastData);
  }

  async *#read(): AsyncGenerator<ChatCompletionChunk, void, undefined> {
    const events: EventSourceMessage[] = [];
    let parseError: ParseError | undefined;
    const parser = createParser({
      onEvent: (event) => events.push(event),
      onError: (error) => {
        if (error.type === "max-buffer-size-exceeded") parseError = error;
      },
      maxBufferSize: this.#options.maxEventSize ?? DEFAULT_MAX_EVENT_SIZE,
    });
    const decoder = new TextDecoder();
    let sawDone = false;
    let finished = false;
    let endsWithCR = false;
    try {
      if (this.#stopped !== undefined) throw this.#stopped;
      this.#reader = this.#body.getReader();
      this.#startTimer();
      while (!sawDone) {
        let next: ReadableStreamReadResult<Uint8Array>;
        try {
          next = await this.#reader.read();
        } catch (error) {
          throw this.#stopped ?? this.#cut(error);
        }
        if (this.#stopped !== undefined) throw this.#stopped;
        // At the end, a last lone CR is a whole line end: the parser held it back to see if LF followed.
        let text = "";
        if (!next.done) text = decoder.decode(next.value, { stream: true });
        else if (endsWithCR) text = "\n";
        parser.feed(text);
        endsWithCR = text.charCodeAt(text.length - 1) === 13;
        if (parseError !== undefined) {
          throw new StudioStreamError(
            `${this.#source.method} ${this.#source.path} sent an event larger than ${this.#options.maxEventSize ?? DEFAULT_MAX_EVENT_SIZE} characters inside the stream`,
            { method: this.#source.method, path: this.#source.path },
          );
        }
        for (let i = 0; i < events.length; i++) {
          const data = (events[i] as EventSourceMessage).data;
          if (data === "[DONE]") {
            sawDone = true;
            break;
          }
          const chunk = parseChunk(data, this.#source);
          this.#lastData = data;
          this.#aggregate.add(chunk);
          this.#suspended = true;
          yield chunk;
          this.#suspended = false;
          // The time the caller spent on the chunk is not the server's silence.
          this.#lastChunkAt = performance.now();
          if (this.#stopped !== undefined) throw this.#stopped;
        }
        events.length = 0;
        if (next.done) {
          finished = true;
          if (!sawDone) throw this.#cut(undefined);
        }
      }
      if (!finished) finished = await this.#bodyEndsAfterDone();
      this.#state = "done";
      this.#settle.resolve(this.#aggregate.result());
    } catch (error) {
      this.#state = "failed";
      this.#settle.reject(error);
      throw error;
    } finally {
      // Reached by [DONE], by an error, and by `break` (the generator's return()).
      if (this.#state === "reading") {
        this.#state = "failed";
        this.#settle.reject(
          new StudioError(
            "the stream was closed before its end (the loop stopped early), so it has no final completion",
          ),
        );
      }
      this.#release(finished);
    }
  }

  /** A body that ended or broke before `data: [DONE]`. */
  #cut(cause: unknown): StudioConnectionError {
    return new StudioConnectionError(
      `${this.#source.method} ${this.#source.path}: the connection closed before the stream's end (data: [DONE])`,
      { method: this.#source.method, path: this.#source.path, cause },
    );
  }

  #onAbort = (): void => {
    this.#stop(this.#options.signal?.reason);
  };

  #stop(reason: unknown): void {
    if (this.#stopped !== undefined || this.#state === "done" || this.#state === "failed") return;
    this.#stopped = reason ?? new StudioError("the stream was stopped");
    // A pending read() settles as done once the body is cancelled; the loop then throws #stopped.
    void (this.#reader ?? this.#body).cancel(this.#stopped).catch(() => undefined);
  }

  /** One timer for the whole stream, re-armed lazily: per-chunk work stays a single clock read. */
  #startTimer(): void {
    const timeoutMs = this.#options.timeoutMs;
    if (timeoutMs === undefined) return;
    this.#lastChunkAt = performance.now();
    const check = () => {
      const idle = this.#suspended ? 0 : performance.now() - this.#lastChunkAt;
      if (idle < timeoutMs) {
        this.#timer = setTimeout(check, timeoutMs - idle);
        return;
      }
      this.#stop(
        new StudioTimeoutError(
          `${this.#source.method} ${this.#source.path} sent no chunk for ${timeoutMs} ms`,
          { timeoutMs },
        ),
      );
    };
    this.#timer = setTimeout(check, timeoutMs);
  }

  /**
   * After [DONE] the server ends the body at once: one more read lets the connection be reused. Whether the
   * body ended within the grace period; if not (more bytes, or nothing), the caller closes the connection.
   */
  async #bodyEndsAfterDone(): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), AFTER_DONE_GRACE_MS);
    });
    try {
      return (await Promise.race([this.#reader?.read(), late]))?.done === true;
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  #release(finished: boolean): void {
    clearTimeout(this.#timer);
    this.#options.signal?.removeEventListener("abort", this.#onAbort);
    // Cancelling a body still open closes its connection.
    if (!finished) void this.#reader?.cancel().catch(() => undefined);
  }
}

/** setTimeout fires at once past this, so a larger timeout would end every stream. */
const MAX_TIMER_MS = 2_147_483_647;

function sourceOf(options: ChatCompletionStreamOptions, path: string): StreamSource {
  for (const field of ["timeoutMs", "maxEventSize"] as const) {
    const value: unknown = options[field];
    if (
      value !== undefined &&
      !(Number.isInteger(value) && (value as number) > 0 && (value as number) <= MAX_TIMER_MS)
    ) {
      const received =
        typeof value === "number" || typeof value === "boolean" ? `${typeof value} ${value}` : typeof value;
      throw new StudioValidationError(
        `stream options.${field}`,
        `must be an integer from 1 to ${MAX_TIMER_MS}`,
        received,
      );
    }
  }
  return { method: options.method ?? "POST", path: options.path ?? path, secrets: options.secrets ?? [] };
}
