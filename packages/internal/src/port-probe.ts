// Whether this process could listen on an address now: a server that would fail only after loading (vLLM
// takes minutes to load weights) is refused before it starts. Node-only.
import { createServer } from "node:net";

export type PortState = { state: "free" } | { state: "in-use" } | { state: "unusable"; reason: string };

/** Tries to listen on host:port exclusively, and lets go at once. */
export function probePort(host: string, port: number): Promise<PortState> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRINUSE") resolve({ state: "in-use" });
      else resolve({ state: "unusable", reason: error.code ?? error.message });
    });
    server.listen({ host, port, exclusive: true }, () => {
      server.close(() => resolve({ state: "free" }));
    });
  });
}
