// The streaming server the stream benchmarks read, run as its own process (`node stream-server.js <port>`)
// so its work shares neither the event loop nor the heap of the clients being timed. POST
// /v1/chat/completions answers vLLM's stream framing with `max_tokens` token chunks (then the finish chunk
// and [DONE], with the usage before it when `stream_options.include_usage` asks); the first chunk is
// written at once, the rest in 16 KiB writes, as a busy server's socket would deliver them. GET /v1/models
// lists the one model, for `studio-serve bench`, which reads it first.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

const head = '{"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1763892000,"model":"bench"';
const event = (choice: string) => `data: ${head},"choices":[${choice}]}\n\n`;
const first = event(
  '{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}',
);
const token = event(
  '{"index":0,"delta":{"content":" token"},"logprobs":null,"finish_reason":null,"token_ids":null}',
);
const finish = event(
  '{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"length","stop_reason":null}',
);
const usage = (tokens: number) =>
  `data: ${head},"choices":[],"usage":{"prompt_tokens":8,"completion_tokens":${tokens},"total_tokens":${8 + tokens}}}\n\n`;
const models =
  '{"object":"list","data":[{"id":"bench","object":"model","created":1763892000,"owned_by":"vllm","root":"bench","parent":null}]}';
const WRITE_BYTES = 16 * 1024;

/** The rest of a stream of `tokens` token chunks, cached per size: the server's cost stays a write. */
const rests = new Map<string, Buffer[]>();
function restOf(tokens: number, withUsage: boolean): Buffer[] {
  const key = `${tokens}:${withUsage}`;
  let pieces = rests.get(key);
  if (pieces === undefined) {
    const body = Buffer.from(
      `${token.repeat(tokens)}${finish}${withUsage ? usage(tokens) : ""}data: [DONE]\n\n`,
    );
    pieces = [];
    for (let at = 0; at < body.length; at += WRITE_BYTES) pieces.push(body.subarray(at, at + WRITE_BYTES));
    rests.set(key, pieces);
  }
  return pieces;
}

function answer(request: IncomingMessage, response: ServerResponse): void {
  if (request.method === "GET" && request.url === "/health") {
    response.writeHead(200).end();
    return;
  }
  if (request.method === "GET" && request.url === "/v1/models") {
    response.writeHead(200, { "content-type": "application/json" }).end(models);
    return;
  }
  if (request.method !== "POST" || request.url !== "/v1/chat/completions") {
    response.writeHead(404).end();
    return;
  }
  const parts: Buffer[] = [];
  request.on("data", (part: Buffer) => parts.push(part));
  request.once("end", () => {
    const { max_tokens: tokens, stream_options: options } = JSON.parse(
      Buffer.concat(parts).toString("utf8"),
    ) as { max_tokens: number; stream_options?: { include_usage?: boolean } };
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    response.write(first);
    const pieces = restOf(tokens, options?.include_usage === true);
    let next = 0;
    // Honour backpressure: a client that reads slowly is not buried in buffered writes.
    const pump = () => {
      while (next < pieces.length)
        if (!response.write(pieces[next++])) return void response.once("drain", pump);
      response.end();
    };
    setImmediate(pump);
  });
}

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port <= 0) {
  console.error("usage: node stream-server.js <port>");
  process.exit(2);
}
const server = createServer(answer);
server.keepAliveTimeout = 60_000;
server.listen(port, "127.0.0.1", () => console.log(`streaming on http://127.0.0.1:${port}`));
process.once("SIGTERM", () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
