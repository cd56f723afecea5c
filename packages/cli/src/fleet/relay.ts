import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  request,
  type Server,
  type ServerResponse,
} from "node:http";

/**
 * Where each relay sends its requests, and how many are open at each instance. The rolling reload moves
 * `target[i]` away from instance i, waits until `inflight[i]` is 0, restarts it, then points it back.
 */
export interface Routing {
  readonly ports: readonly number[];
  /** `target[i]`: the instance relay i forwards to now. */
  readonly target: number[];
  /** Requests open at each instance. */
  readonly inflight: number[];
  /** Whether each instance serves now (false while it restarts or after it died). */
  readonly ready: boolean[];
}

/** The ready instance with the fewest open requests, other than `except`; undefined when none is. */
export function leastBusyReady(routing: Routing, except?: number): number | undefined {
  let best: number | undefined;
  for (let i = 0; i < routing.ports.length; i += 1) {
    if (i === except || !routing.ready[i]) continue;
    if (best === undefined || (routing.inflight[i] ?? 0) < (routing.inflight[best] ?? 0)) best = i;
  }
  return best;
}

/** nginx refuses bodies above its client_max_body_size (32m): the relay holds no more than that. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;
/** Headers that describe one connection, not the request: never passed on. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade", "proxy-connection"]);

/**
 * Relay i: a small HTTP server on a Unix socket that nginx sees as instance i. Each request goes to
 * `target[i]` on a fresh connection (so no idle connection to vLLM can be cut under it), both ways as a
 * stream (server-sent events flow), and is cut upstream when the caller goes away. A connection refused
 * before anything was sent (an instance that is restarting) is tried once more on another ready instance.
 * nginx keeps idle connections 60 s, below this server's 75 s, so nginx never reuses one being closed.
 */
export function createRelay(index: number, routing: Routing, onSettled: () => void): Server {
  const server = createServer(
    { keepAliveTimeout: 75_000, headersTimeout: 76_000, requestTimeout: 0 },
    (req, res) => {
      void readBody(req).then(
        (body) => {
          if (body === undefined) {
            res.writeHead(413, { "content-type": "application/json" });
            res.end(JSON.stringify({ error: { message: "request body too large", code: 413 } }));
            return;
          }
          forward(routing.target[index] ?? index, req, res, body, false);
        },
        () => res.destroy(),
      );
    },
  );

  function forward(to: number, req: IncomingMessage, res: ServerResponse, body: Buffer, retried: boolean) {
    routing.inflight[to] = (routing.inflight[to] ?? 0) + 1;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      routing.inflight[to] = (routing.inflight[to] ?? 1) - 1;
      onSettled();
    };
    const upstream = request({
      host: "127.0.0.1",
      port: routing.ports[to],
      method: req.method,
      path: req.url,
      headers: { ...endToEnd(req.headers), "content-length": String(body.length) },
      agent: false,
    });
    upstream.on("response", (answer) => {
      res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
      answer.pipe(res);
      answer.once("error", () => res.destroy());
      answer.once("close", () => {
        if (!answer.complete) res.destroy();
        release();
      });
    });
    upstream.on("error", (error: NodeJS.ErrnoException) => {
      release();
      const other = leastBusyReady(routing, to);
      if (!retried && error.code === "ECONNREFUSED" && other !== undefined && !res.destroyed) {
        forward(other, req, res, body, true);
        return;
      }
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(502, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "the vLLM instance did not answer", code: 502 } }));
      } else {
        res.destroy();
      }
    });
    // The caller went away before the answer was complete: stop the generation.
    res.once("close", () => {
      if (!res.writableFinished) upstream.destroy();
    });
    upstream.end(body);
  }

  return server;
}

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const kept: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!HOP_BY_HOP.has(name) && value !== undefined) kept[name] = value;
  }
  return kept;
}

async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of req as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > MAX_BODY_BYTES) return undefined;
    parts.push(part);
  }
  return Buffer.concat(parts);
}
