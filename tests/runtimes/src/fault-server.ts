// A real HTTP server for what Prism cannot do: fail once then answer (the retry check), and answer a chat
// completion as server-sent events (the stream check). Loopback only, on a free port, always closed.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { getFreePort } from "@finetune-studio/testing";
import studioDocument from "@finetune-studio/types/studio.openapi.json" with { type: "json" };

export interface FaultServer {
  readonly url: string;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 64 * 1024;
const examples = studioDocument.components.examples as Record<string, { value: unknown }>;
const fullTree = examples.ProjectTreeFull?.value as { project: Record<string, unknown> };

/** Project ids that have already been answered 503 once. */
const failedOnce = new Set<string>();

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

async function readBody(request: IncomingMessage): Promise<string> {
  let body = "";
  for await (const chunk of request) {
    body += chunk;
    if (body.length > MAX_BODY_BYTES) throw new Error("request body too large");
  }
  return body;
}

/** The first request for a project id gets 503; the next gets the contract's tree under that id. */
function projectTree(id: string, response: ServerResponse): void {
  if (!failedOnce.has(id)) {
    failedOnce.add(id);
    sendJson(response, 503, { error: "warming up" });
    return;
  }
  sendJson(response, 200, { project: { ...fullTree.project, id, name: "served after a 503" } });
}

/** vLLM's answer to `stream: true`: chat.completion.chunk events, then `data: [DONE]`. */
function streamCompletion(model: string, response: ServerResponse): void {
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const chunk = (delta: Record<string, unknown>, finish: string | null) => ({
    id: "chatcmpl-stream",
    object: "chat.completion.chunk",
    created: 1763820000,
    model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  const events = [
    chunk({ role: "assistant", content: "Open " }, null),
    chunk({ content: "Settings." }, null),
    chunk({}, "stop"),
  ];
  for (const event of events) response.write(`data: ${JSON.stringify(event)}\n\n`);
  response.end("data: [DONE]\n\n");
}

async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const { pathname } = new URL(request.url ?? "/", "http://127.0.0.1");
  const project = /^\/api\/v1\/public\/projects\/([0-9a-f-]{36})$/.exec(pathname);
  if (request.method === "GET" && project?.[1]) return projectTree(project[1], response);
  if (request.method === "POST" && pathname === "/v1/chat/completions") {
    const body = JSON.parse(await readBody(request)) as { model?: string; stream?: boolean };
    if (body.stream === true) return streamCompletion(body.model ?? "model", response);
    return sendJson(response, 400, { error: "this server only streams" });
  }
  sendJson(response, 404, { error: `no ${request.method} ${pathname} here` });
}

export async function startFaultServer(): Promise<FaultServer> {
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) sendJson(response, 400, { error: String(error) });
      else response.destroy();
    });
  });
  const port = await getFreePort();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
