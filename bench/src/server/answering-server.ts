// The server the benchmarks call, run as its own process (`node answering-server.js <port>`) so that its
// work does not share the event loop or the heap of the clients being timed. It answers every route of
// both contracts with the contracts' examples and does nothing else: what is measured is the client.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { answerFor } from "./answers.js";

const json = { "content-type": "application/json" };

function answer(request: IncomingMessage, response: ServerResponse): void {
  const body = answerFor(request.method ?? "", (request.url ?? "").split("?")[0] ?? "");
  if (body === undefined) {
    response.writeHead(404, json).end('{"error":"not found"}');
    return;
  }
  // Read the request body to its end before answering, as a real server would.
  request.resume();
  // With its length, as vLLM's (FastAPI's JSONResponse) and most JSON APIs answer: writeHead alone would
  // make node:http send the body chunked.
  request.once("end", () => {
    response.writeHead(200, { ...json, "content-length": Buffer.byteLength(body) }).end(body);
  });
}

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port <= 0) {
  console.error("usage: node answering-server.js <port>");
  process.exit(2);
}
const server = createServer(answer);
// Keep connections open between calls, longer than any pause in the bench, as production servers do.
server.keepAliveTimeout = 60_000;
server.listen(port, "127.0.0.1", () => console.log(`answering on http://127.0.0.1:${port}`));
process.once("SIGTERM", () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
