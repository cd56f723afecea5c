import { createServer, type Server } from "node:http";
import { getFreePort } from "@finetune-studio/testing";

// A stand-in for vLLM with a known schedule, for `studio-serve bench`: each streamed chat answer sends its
// first chunk after `firstChunkMs` (plus `msPerOpenRequest` for every request open at once, a server that
// degrades with load), then one chunk every `chunkEveryMs`, `chunks` chunks in all, then the usage and
// [DONE]. Contract-shaped chunks; /health and /v1/models as vLLM answers them.

export interface Schedule {
  firstChunkMs: number;
  chunkEveryMs: number;
  chunks: number;
  promptTokens: number;
  msPerOpenRequest?: number;
  /** When set, /v1 routes want `Authorization: Bearer <key>`. */
  apiKey?: string;
}

export interface ScheduleServer {
  url: string;
  close(): Promise<void>;
}

export async function startScheduleServer(schedule: Schedule): Promise<ScheduleServer> {
  let open = 0;
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
    request.resume();
    request.on("end", () => {
      open++;
      const first = schedule.firstChunkMs + (schedule.msPerOpenRequest ?? 0) * open;
      response.writeHead(200, { "content-type": "text/event-stream" });
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
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
