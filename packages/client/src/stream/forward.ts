import type { ChatCompletionChunk } from "@finetune-studio/types";
import { StudioError } from "../errors.js";

// Forwarding a stream one hop further (your server to a browser) as `text/event-stream` bytes, in vLLM's own
// framing, so the far side reads it with the same parser (or with any SSE client). A failure the far side
// should hear about (a Studio error: the server's error event, a malformed event, a timeout, a cut) is sent
// as vLLM sends one, `data: {"error": {...}}`; our messages never hold a secret. Anything else (the caller's
// abort) errors the stream, which cuts the far side's connection.

const encoder = new TextEncoder();

export function encodeServerSentEvents(
  chunks: AsyncIterator<ChatCompletionChunk>,
  lastData: () => string,
): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await chunks.next();
        if (next.done) {
          controller.enqueue(encoder.encode("data: [DONE]\n\n"));
          controller.close();
        } else {
          controller.enqueue(encoder.encode(`data: ${lastData()}\n\n`));
        }
      } catch (error) {
        if (!(error instanceof StudioError)) {
          controller.error(error);
          return;
        }
        const serverError = "serverError" in error ? (error.serverError as object | undefined) : undefined;
        const body = { error: serverError ?? { message: error.message, type: error.name } };
        controller.enqueue(encoder.encode(`data: ${JSON.stringify(body)}\n\n`));
        controller.close();
      }
    },
    async cancel() {
      await chunks.return?.();
    },
  });
}
