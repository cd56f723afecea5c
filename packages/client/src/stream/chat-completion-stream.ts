import { MAX_TIMER_MS } from "@finetune-studio/internal";
import type { ChatCompletionChunk } from "@finetune-studio/types";
import {
  StudioConnectionError,
  StudioError,
  StudioStreamError,
  StudioTimeoutError,
  StudioValidationError,
} from "../errors.js";
import { ChunkAggregator } from "./aggregate.js";
import { eventStreamReader } from "./event-stream.js";
import { parseChunk, sent, type Where } from "./parse-chunk.js";
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

const DEFAULT_MAX_EVENT_SIZE = 1_048_576;
/** How long the end of the body may lag behind `data: [DONE]` before the connection is closed instead. */
const AFTER_DONE_GRACE_MS = 100;
const STOPPED_EARLY =
  "the stream was closed before its end (the loop stopped early), so it has no final completion";
const noop = () => {};

export class ChatCompletionStream implements AsyncIterable<ChatCompletionChunk> {
  readonly #body: ReadableStream<Uint8Array>;
  readonly #where: Where;
  readonly #options: ChatCompletionStreamOptions;
  readonly #aggregate = new ChunkAggregator();
  readonly #ended: Promise<StreamedChatCompletion>;
  #resolve!: (completion: StreamedChatCompletion) => void;
  #reject!: (error: unknown) => void;
  #opened = false;
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  /** Why the stream was stopped from outside the read loop (signal, timeout); thrown by the loop. */
  #stopped: unknown;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #lastChunkAt = 0;
  /** True while the caller holds a chunk: the idle timeout measures only the server's silence. */
  #holding = false;
  /** The raw payload of the last chunk yielded, forwarded as is by toReadableStream. */
  #lastData = "";

  private constructor(body: ReadableStream<Uint8Array>, where: Where, options: ChatCompletionStreamOptions) {
    this.#body = body;
    this.#where = where;
    this.#options = options;
    this.#ended = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    // Nobody may ask for the final completion: its failure must not be an unhandled rejection.
    this.#ended.catch(noop);
    options.signal?.addEventListener("abort", this.#onAbort, { once: true });
    if (options.signal?.aborted) this.#onAbort();
  }

  /** Reads a `text/event-stream` answer to a chat completion (`stream: true`). */
  static fromResponse(response: Response, options: ChatCompletionStreamOptions = {}): ChatCompletionStream {
    const { body } = response;
    try {
      const where = whereOf(options, "/v1/chat/completions");
      const type = response.headers.get("content-type") ?? "no content type";
      if (body !== null && /^text\/event-stream/i.test(type))
        return new ChatCompletionStream(body, where, options);
      const got = `${response.status} with ${body === null ? "no body" : type}`;
      throw new StudioStreamError(
        `${where.method} ${where.path} answered ${got} where a text/event-stream was expected`,
        where,
      );
    } catch (error) {
      // Refused: the body is not read, so its connection is closed.
      void body?.cancel().catch(noop);
      throw error;
    }
  }

  /** Reads what `toReadableStream()` produced on the other side of a hop (a browser reading your server). */
  static fromReadableStream(
    body: ReadableStream<Uint8Array>,
    options: ChatCompletionStreamOptions = {},
  ): ChatCompletionStream {
    return new ChatCompletionStream(body, whereOf(options, "(forwarded stream)"), options);
  }

  /** Every chunk, in order. A stream is read once: a second iteration throws. */
  [Symbol.asyncIterator](): AsyncIterator<ChatCompletionChunk> {
    return this.#open();
  }

  /** The content deltas of choice 0, as text. Reads the stream. */
  textStream(): AsyncIterable<string> {
    const chunks = this.#open();
    return (async function* () {
      for await (const { choices } of chunks) {
        for (const { index, delta } of choices) {
          if (index === 0 && typeof delta?.content === "string" && delta.content !== "") yield delta.content;
        }
      }
    })();
  }

  /**
   * The completion assembled from every chunk: content, reasoning, tool calls, finish_reason, usage. Reads
   * the stream to its end if nobody is reading it; otherwise waits for the reader to reach the end (and
   * rejects if it stopped early or failed).
   */
  async finalCompletion(): Promise<StreamedChatCompletion> {
    if (!this.#opened) for await (const _ of this);
    return this.#ended;
  }

  /**
   * The stream as `text/event-stream` bytes, each chunk as the server sent it, then `data: [DONE]`: return
   * it from a server route and read it in the browser with `ChatCompletionStream.fromReadableStream`.
   * Cancelling it (the browser went away) closes the upstream connection.
   */
  toReadableStream(): ReadableStream<Uint8Array> {
    const chunks = this.#open();
    const encoder = new TextEncoder();
    return new ReadableStream({
      pull: async (controller) => {
        let data: string;
        try {
          data = (await chunks.next()).done ? "[DONE]" : this.#lastData;
        } catch (error) {
          // A Studio error (the server's error event, a malformed event, a timeout, a cut) is sent on as vLLM
          // sends one; our messages never hold a secret. Anything else (the caller's abort) cuts the far side.
          if (!(error instanceof StudioError)) return controller.error(error);
          const { serverError } = error as StudioStreamError;
          data = JSON.stringify({ error: serverError ?? { message: error.message, type: error.name } });
        }
        controller.enqueue(encoder.encode(`data: ${data}\n\n`));
        // Anything but a chunk ([DONE], an error event) is the last event.
        if (data !== this.#lastData) controller.close();
      },
      cancel: () => chunks.return().then(noop),
    });
  }

  #open(): AsyncGenerator<ChatCompletionChunk, void, undefined> {
    if (this.#opened) {
      throw new StudioError(
        "a ChatCompletionStream can be read only once; use finalCompletion() for the whole",
      );
    }
    this.#opened = true;
    const chunks = this.#read();
    // return() before the first next() never runs the generator's body, nor its `finally`: release here.
    const finish = chunks.return;
    chunks.return = (value) => {
      if (this.#reader === undefined) this.#release(new StudioError(STOPPED_EARLY));
      return finish.call(chunks, value);
    };
    return chunks;
  }

  async *#read(): AsyncGenerator<ChatCompletionChunk, void, undefined> {
    const { maxEventSize = DEFAULT_MAX_EVENT_SIZE, secrets = [], timeoutMs } = this.#options;
    const events: string[] = [];
    const feed = eventStreamReader(
      maxEventSize,
      (data) => events.push(data),
      () => sent(this.#where, `an event larger than ${maxEventSize} characters`),
    );
    const decoder = new TextDecoder();
    try {
      if (this.#stopped !== undefined) throw this.#stopped;
      const reader = this.#body.getReader();
      this.#reader = reader;
      if (timeoutMs !== undefined) this.#watch(timeoutMs);
      let done = false;
      while (!done) {
        let next: ReadableStreamReadResult<Uint8Array>;
        try {
          next = await reader.read();
        } catch (error) {
          throw this.#stopped ?? cut(this.#where, error);
        }
        if (this.#stopped !== undefined) throw this.#stopped;
        if (next.done) throw cut(this.#where, undefined);
        feed(decoder.decode(next.value, { stream: true }));
        // An indexed loop: for-of over the batch costs a few percent of throughput here.
        for (let i = 0; i < events.length; i++) {
          const data = events[i] as string;
          if (data === "[DONE]") {
            done = true;
            break;
          }
          const chunk = parseChunk(data, this.#where, secrets);
          this.#lastData = data;
          this.#aggregate.add(chunk);
          this.#holding = true;
          yield chunk;
          this.#holding = false;
          // The time the caller spent on the chunk is not the server's silence.
          this.#lastChunkAt = performance.now();
          if (this.#stopped !== undefined) throw this.#stopped;
        }
        events.length = 0;
      }
      // The body ends right after [DONE]: reading that end lets the connection be reused. More bytes, or no
      // end within the grace period, and the body is cancelled below, closing the connection.
      const late = setTimeout(() => reader.cancel().catch(noop), AFTER_DONE_GRACE_MS);
      await reader.read().catch(noop);
      clearTimeout(late);
      this.#resolve(this.#aggregate.result());
    } catch (error) {
      this.#reject(error);
      throw error;
    } finally {
      // Still holding a chunk here means the caller stopped the loop (`break` calls return() at the yield).
      this.#release(this.#holding ? new StudioError(STOPPED_EARLY) : undefined);
    }
  }

  /** Ends the stream: no more timer or signal, and the body cancelled (closing its connection if open). */
  #release(stoppedEarly: StudioError | undefined): void {
    if (stoppedEarly) this.#reject(stoppedEarly);
    clearTimeout(this.#timer);
    this.#options.signal?.removeEventListener("abort", this.#onAbort);
    // One read to its end stays as it is: cancelling a finished body does nothing.
    void (this.#reader ?? this.#body).cancel().catch(noop);
  }

  /** One timer for the whole stream, re-armed lazily: per-chunk work stays a single clock read. */
  #watch(timeoutMs: number): void {
    const message = `${this.#where.method} ${this.#where.path} sent no chunk for ${timeoutMs} ms`;
    const check = () => {
      const idle = this.#holding ? 0 : performance.now() - this.#lastChunkAt;
      if (idle < timeoutMs) this.#timer = setTimeout(check, timeoutMs - idle);
      else this.#stop(new StudioTimeoutError(message, { timeoutMs }));
    };
    this.#lastChunkAt = performance.now();
    this.#timer = setTimeout(check, timeoutMs);
  }

  #onAbort = (): void => this.#stop(this.#options.signal?.reason);

  #stop(reason: unknown): void {
    if (this.#stopped !== undefined) return;
    this.#stopped = reason ?? new StudioError("the stream was stopped");
    // A pending read() settles as done once the body is cancelled; the loop then throws #stopped.
    void (this.#reader ?? this.#body).cancel(this.#stopped).catch(noop);
  }
}

function whereOf(options: ChatCompletionStreamOptions, path: string): Where {
  for (const field of ["timeoutMs", "maxEventSize"] as const) {
    const value = options[field];
    if (value !== undefined && !(Number.isInteger(value) && value > 0 && value <= MAX_TIMER_MS)) {
      const shown = typeof value === "number" || typeof value === "boolean" ? ` ${value}` : "";
      const rule = `must be an integer from 1 to ${MAX_TIMER_MS}`;
      throw new StudioValidationError(`stream options.${field}`, rule, typeof value + shown);
    }
  }
  return { method: options.method ?? "POST", path: options.path ?? path };
}

function cut({ method, path }: Where, cause: unknown): StudioConnectionError {
  const message = `${method} ${path}: the connection closed before the stream's end (data: [DONE])`;
  return new StudioConnectionError(message, { method, path, cause });
}
