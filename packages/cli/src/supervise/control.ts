import { chmodSync } from "node:fs";
import { connect, createServer, type Server } from "node:net";

/**
 * The control socket of a multi-instance launch (DIR/control.sock, mode 0600): one JSON request per
 * connection, answered by progress lines and an outcome, each a JSON line:
 *   → {"op":"reload"} | {"op":"instances"} | {"op":"stop"} | {"op":"adapter","action":"load","name":"n","path":"p"}
 *     | {"op":"adapter","action":"unload","name":"n"}
 *   ← {"line":"..."} ... then {"done":true,"ok":true|false}
 */
export type ControlRequest =
  | { op: "reload" }
  | { op: "instances" }
  | { op: "stop" }
  | { op: "adapter"; action: "load"; name: string; path: string }
  | { op: "adapter"; action: "unload"; name: string };

export type ControlHandler = (request: ControlRequest, say: (line: string) => void) => Promise<boolean>;

const MAX_REQUEST_BYTES = 64 * 1024;
const MAX_LINE_CHARS = 4_000;

export function serveControl(path: string, handler: ControlHandler): Promise<Server> {
  const server = createServer((socket) => {
    let text = "";
    socket.setEncoding("utf8");
    socket.on("error", () => {});
    socket.on("data", (chunk: string) => {
      text += chunk;
      if (text.length > MAX_REQUEST_BYTES) socket.destroy();
      const end = text.indexOf("\n");
      if (end === -1) return;
      socket.removeAllListeners("data");
      const request = parseRequest(text.slice(0, end));
      const send = (value: object) => {
        if (!socket.destroyed) socket.write(`${JSON.stringify(value)}\n`);
      };
      if (request === undefined) {
        send({ line: "not a request this launch understands" });
        socket.end(`${JSON.stringify({ done: true, ok: false })}\n`);
        return;
      }
      void handler(request, (line) => send({ line })).then(
        (ok) => socket.end(`${JSON.stringify({ done: true, ok })}\n`),
        (error: unknown) => {
          send({ line: String(error) });
          socket.end(`${JSON.stringify({ done: true, ok: false })}\n`);
        },
      );
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => {
      chmodSync(path, 0o600);
      resolve(server);
    });
  });
}

function parseRequest(line: string): ControlRequest | undefined {
  try {
    const value = JSON.parse(line) as Record<string, unknown>;
    if (value.op === "reload") return { op: "reload" };
    if (value.op === "instances") return { op: "instances" };
    if (value.op === "stop") return { op: "stop" };
    if (value.op === "adapter" && typeof value.name === "string") {
      if (value.action === "unload") return { op: "adapter", action: "unload", name: value.name };
      if (value.action === "load" && typeof value.path === "string") {
        return { op: "adapter", action: "load", name: value.name, path: value.path };
      }
    }
  } catch {
    // Not JSON.
  }
  return undefined;
}

/**
 * Sends one request and passes each progress line on as it comes; resolves with the outcome, or with
 * "unreachable" when no launch listens on the socket.
 */
export function callControl(
  path: string,
  request: ControlRequest,
  onLine: (line: string) => void,
): Promise<boolean | "unreachable"> {
  return new Promise((resolve) => {
    const socket = connect(path);
    let connected = false;
    let outcome: boolean | undefined;
    let buffered = "";
    socket.setEncoding("utf8");
    socket.once("connect", () => {
      connected = true;
      socket.write(`${JSON.stringify(request)}\n`);
    });
    socket.on("data", (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      if (buffered.length > MAX_REQUEST_BYTES) socket.destroy();
      for (const line of lines) {
        try {
          const value = JSON.parse(line) as { line?: unknown; done?: unknown; ok?: unknown };
          if (typeof value.line === "string") onLine(value.line.slice(0, MAX_LINE_CHARS));
          if (value.done === true) outcome = value.ok === true;
        } catch {
          // A line that is not ours: ignore it.
        }
      }
    });
    socket.once("error", () => {});
    socket.once("close", () => resolve(connected ? (outcome ?? false) : "unreachable"));
  });
}
