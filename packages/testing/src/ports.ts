import { createServer } from "node:net";
import { probePort } from "@finetune-studio/internal";

/** Asks the OS for a free TCP port on loopback; the port is released before it is returned. */
export function getFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A free port P whose next `following` ports are free too: `launch --instances N` puts its instances on
 * P+1..P+N, so tests and benches running side by side must not hand one launch's instance port to another.
 */
export async function getFreePortFollowedBy(following: number): Promise<number> {
  for (;;) {
    const port = await getFreePort();
    if (port + following > 65535) continue;
    const next = Array.from({ length: following }, (_, i) => probePort("127.0.0.1", port + 1 + i));
    if ((await Promise.all(next)).every((state) => state.state === "free")) return port;
  }
}
