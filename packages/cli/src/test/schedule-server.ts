import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { getFreePort } from "@finetune-studio/testing";

// A stand-in for vLLM with a known schedule, for `studio-serve bench`: each streamed chat answer sends its
// first chunk after `firstChunkMs` (plus `msPerOpenRequest` for every request open at once, a server that
// degrades with load), then one chunk every `chunkEveryMs`, `chunks` chunks in all, then the usage and
// [DONE]; or fails the request as `fail` says, the ways vLLM fails one. Contract-shaped chunks; /health and
// /v1/models as vLLM answers them.

/**
 * How a chat request fails: an error status with vLLM's error body, a 200 stream whose first event is an
 * error (what vLLM sends when generation fails after the headers), or a stream cut after its first chunk.
 */
export type Failure =
  | { status: number; message: string }
  | { streamError: string; code: number }
  | { cutAfterFirstChunk: true };

export interface Schedule {
  firstChunkMs: number;
  chunkEveryMs: number;
  chunks: number;
  promptTokens: number;
  msPerOpenRequest?: number;
  /** When set, /v1 routes want `Authorization: Bearer <key>`. */
  apiKey?: string;
  /** The failure of the chat request numbered `index` (from 0, in arrival order), or undefined to serve it. */
  fail?: (index: number, authorization: string | undefined) => Failure | undefined;
  /** Hears each chat request: its body and headers. */
  onChat?: (body: string, headers: IncomingHttpHeaders) => void;
}

export interface ScheduleServer {
  url: string;
  /** The most chat requests it had open at once. */
  peakOpen(): number;
  close(): Promise<void>;
}

export async function startScheduleServer(schedule: Schedule): Promise<ScheduleServer> {
  let open = 0;
  let peakOpen = 0;
  let arrived = 0;
  const base = { id: "chatcmpl-stand-in", created: 1763820000, model: "stand-in" };
  const server: Server = createServer((request, response) => {
    if (request.url === "/health") return void response.writeHead(200).end();
    if (schedule.apiKey !== undefined && request.headers.authorization !== `Bearer ${schedule.apiKey}`) {
      response.writeHead(401, { "content-type": "application/json" });
      return void response.end(JSON.stringify({ error: "Unauthorized" }));
    }
    if (request.url === "/v1/models") {
      response.writeHead(200, { "content-type": "application/json" });
      return void response.end(
        JSON.stringify({
          object: "list",
          data: [
            {
              id: "stand-in",
              object: "model",
              created: 1763820000,
              owned_by: "vllm",
              root: "stand-in",
              parent: null,
            },
          ],
        }),
      );
    }
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (part: string) => {
      body += part;
    });
    request.on("end", () => {
      if (request.method === "POST") schedule.onChat?.(body, request.headers);
      const failure = schedule.fail?.(arrived++, request.headers.authorization);
      if (failure !== undefined && "status" in failure) {
        response.writeHead(failure.status, { "content-type": "application/json" });
        const error = {
          message: failure.message,
          type: "InternalServerError",
          param: null,
          code: failure.status,
        };
        return void response.end(JSON.stringify({ error }));
      }
      open++;
      peakOpen = Math.max(peakOpen, open);
      const first = schedule.firstChunkMs + (schedule.msPerOpenRequest ?? 0) * open;
      response.writeHead(200, { "content-type": "text/event-stream" });
      if (failure !== undefined && "streamError" in failure) {
        const error = {
          message: failure.streamError,
          type: "BadRequestError",
          param: null,
          code: failure.code,
        };
        response.end(`data: ${JSON.stringify({ error })}\n\n`);
        open--;
        return;
      }
      let sent = 0;
      let timer: NodeJS.Timeout;
      const finish = () => {
        open--;
        clearTimeout(timer);
      };
      response.once("close", finish);
      const next = () => {
        const chunk = {
          ...base,
          object: "chat.completion.chunk",
          choices: [{ index: 0, delta: { content: "x" }, finish_reason: null }],
        };
        response.write(`data: ${JSON.stringify(chunk)}\n\n`);
        sent++;
        if (failure !== undefined) return void response.destroy();
        if (sent < schedule.chunks) {
          timer = setTimeout(next, schedule.chunkEveryMs);
          return;
        }
        const usage = {
          prompt_tokens: schedule.promptTokens,
          completion_tokens: schedule.chunks,
          total_tokens: schedule.promptTokens + schedule.chunks,
        };
        response.write(
          `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [], usage })}\n\n`,
        );
        response.end("data: [DONE]\n\n");
      };
      timer = setTimeout(next, first);
    });
  });
  const port = await getFreePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    peakOpen: () => peakOpen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
