// A real node:http server on 127.0.0.1 that answers POST /v1/chat/completions with a scripted
// `text/event-stream`, written however the test says (byte by byte, split inside a character, ...). It
// records each request's body and when its socket closed, so a test can see the client hang up.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { getFreePort } from "@finetune-studio/testing";
import { afterEach } from "vitest";
import { textEvents } from "./vllm-stream.js";

export type Script = (response: ServerResponse, request: IncomingMessage) => Promise<void> | void;

export interface StreamedRequest {
  readonly body: string;
  /** Which connection it came on: 1 for the server's first, 2 for its second, ... */
  readonly connection: number;
  /** Resolves when the client's socket closes. */
  readonly closed: Promise<void>;
  readonly isClosed: () => boolean;
}

export interface SseServer {
  readonly url: string;
  readonly requests: StreamedRequest[];
  close(): Promise<void>;
}

export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
};

export async function startSseServer(script: Script): Promise<SseServer> {
  const requests: StreamedRequest[] = [];
  const connections = new WeakMap<object, number>();
  let connectionCount = 0;
  const server = createServer((request, response) => {
    let connection = connections.get(request.socket);
    if (connection === undefined) {
      connection = ++connectionCount;
      connections.set(request.socket, connection);
    }
    let isClosed = false;
    const closed = new Promise<void>((resolve) =>
      request.socket.once("close", () => {
        isClosed = true;
        resolve();
      }),
    );
    const parts: Buffer[] = [];
    request.on("data", (part: Buffer) => parts.push(part));
    request.once("end", () => {
      requests.push({
        body: Buffer.concat(parts).toString("utf8"),
        connection: connection as number,
        closed,
        isClosed: () => isClosed,
      });
      response.socket?.setNoDelay(true);
      Promise.resolve(script(response, request)).catch(() => response.destroy());
    });
  });
  const port = await getFreePort();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Writes each piece as its own write (so its own HTTP chunk), yielding to the event loop between them. */
export async function writePieces(
  response: ServerResponse,
  pieces: readonly (string | Buffer)[],
): Promise<void> {
  for (const piece of pieces) {
    if (response.destroyed) return;
    response.write(piece);
    await tick();
  }
}

/** A stream that never ends: one chunk every 20 ms until the client hangs up. */
export const endlessStream: Script = async (response) => {
  response.writeHead(200, SSE_HEADERS);
  const [first, second] = textEvents();
  await writePieces(response, [`data: ${first}\n\n`]);
  while (!response.destroyed) {
    await writePieces(response, [`data: ${second}\n\n`]);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

/** The bytes of `text`, one per piece. */
export function bytesOf(text: string): Buffer[] {
  return [...Buffer.from(text, "utf8")].map((byte) => Buffer.from([byte]));
}

/** `text` split in two inside the first multi-byte character of `inside` (after its first byte). */
export function splitInsideCharacter(text: string, inside: string): Buffer[] {
  const bytes = Buffer.from(text, "utf8");
  const at = bytes.indexOf(Buffer.from(inside, "utf8")) + 1;
  if (at <= 0) throw new Error(`"${inside}" is not in the text`);
  return [bytes.subarray(0, at), bytes.subarray(at)];
}

/** `serve(script)` for a test file: each server it starts is closed after the test that started it. */
export function sseServersClosedAfterEach(): (script: Script) => Promise<SseServer> {
  const servers: SseServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  return async (script) => {
    const server = await startSseServer(script);
    servers.push(server);
    return server;
  };
}
