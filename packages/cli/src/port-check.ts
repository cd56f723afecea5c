import { createServer } from "node:net";

export type PortState = { state: "free" } | { state: "in-use" } | { state: "unusable"; reason: string };

/** Whether this process could listen on host:port now. vLLM would otherwise fail only after loading. */
export function checkPort(host: string, port: number): Promise<PortState> {
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
