// A real HTTP server on loopback that answers from a script, for fault tests: each request gets the next
// handler (the last one repeats). It records what it received and is always closed, connections included.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type Handler = (request: IncomingMessage, response: ServerResponse) => void;

export interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  readonly authorization: string | undefined;
  readonly headers: IncomingMessage["headers"];
  /** The request body as text, filled in as it arrives. */
  body: string;
}

export interface FaultServer {
  readonly url: string;
  readonly received: ReceivedRequest[];
  close(): Promise<void>;
}

/** Starts the server on 127.0.0.1 (a free port unless `port` is given) and resolves once it listens. */
export async function startFaultServer(handlers: Handler[], port = 0): Promise<FaultServer> {
  const received: ReceivedRequest[] = [];
  const server: Server = createServer((request, response) => {
    const record: ReceivedRequest = {
      method: request.method ?? "",
      url: request.url ?? "",
      authorization: request.headers.authorization,
      headers: request.headers,
      body: "",
    };
    received.push(record);
    const handler = handlers[Math.min(received.length - 1, handlers.length - 1)];
    // Read the body so that a reset or a late answer is the only fault under test.
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => {
      record.body += chunk;
    });
    handler?.(request, response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Handlers for the usual faults. */
export const reply = {
  json:
    (status: number, body: unknown, headers: Record<string, string> = {}): Handler =>
    (_, response) => {
      response.writeHead(status, { "content-type": "application/json", ...headers });
      response.end(JSON.stringify(body));
    },
  text:
    (status: number, body: string, contentType: string, headers: Record<string, string> = {}): Handler =>
    (_, response) => {
      response.writeHead(status, { "content-type": contentType, ...headers });
      response.end(body);
    },
  /** Closes the connection without an answer: the client sees a reset / "other side closed". */
  reset: (): Handler => (request) => {
    request.socket.destroy();
  },
  /** Never answers. */
  hang: (): Handler => () => undefined,
  /** Sends the status line, headers and half a body, then stalls. */
  stallBody: (): Handler => (_, response) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.write('{"project": {');
  },
  /** Echoes the request's Authorization header in the body and a header: a server that leaks it back. */
  echoAuthorization:
    (status: number): Handler =>
    (request, response) => {
      const authorization = request.headers.authorization ?? "";
      response.writeHead(status, { "content-type": "application/json", "www-authenticate": authorization });
      response.end(
        JSON.stringify({ message: `invalid credentials: ${authorization}`, got: [authorization] }),
      );
    },
};
