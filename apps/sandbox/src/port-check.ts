import { createServer } from "node:net";
import { type SandboxOptions, services, UsageError } from "./options.js";

/** Whether a TCP port on loopback can be listened on right now. */
export function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** Refuses to start anything when a port is taken, naming the port and how to choose another. */
export async function assertPortsFree(options: SandboxOptions): Promise<void> {
  for (const service of services) {
    const port = options[service.key];
    if (!(await isFree(port))) {
      throw new UsageError(
        `port ${port} for ${service.what} is busy: stop what uses it, or choose another with ${service.flag} <port> (or ${service.env})`,
      );
    }
  }
}
