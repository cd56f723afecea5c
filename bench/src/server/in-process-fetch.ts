// The network taken out, for the table of what each library's own code costs per call: globalThis.fetch
// answers the same routes as the answering server, in this process, so neither a socket, nor fetch's own
// work, nor the server's process falls into the time. It reads what is sent, as a server would.
import { answerFor } from "./answers.js";

/** A base URL no server listens on: a caller that reached the network anyway fails instead of being timed. */
export const IN_PROCESS_URL = "http://127.0.0.1:9";

const json = { "content-type": "application/json" };

async function answerInProcess(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const request = input instanceof Request ? input : undefined;
  const method = init?.method ?? request?.method ?? "GET";
  const url = request?.url ?? String(input);
  if (init?.body == null && request?.body) await request.arrayBuffer();
  const body = answerFor(method, new URL(url).pathname);
  return body === undefined
    ? new Response('{"error":"not found"}', { status: 404, headers: json })
    : new Response(body, { status: 200, headers: json });
}

/**
 * Runs `work` with globalThis.fetch answering in-process, and puts the real fetch back after, however it
 * ends. Clients that capture fetch when they are created (openapi-fetch does) must be created inside.
 */
export async function withAnswersInProcess<T>(work: () => Promise<T>): Promise<T> {
  const network = globalThis.fetch;
  globalThis.fetch = answerInProcess;
  try {
    return await work();
  } finally {
    globalThis.fetch = network;
  }
}
