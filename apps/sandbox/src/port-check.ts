import { probePort } from "@finetune-studio/internal";
import { type SandboxOptions, services, UsageError } from "./options.js";

/** Whether a TCP port on loopback can be listened on right now (internal's probe, which the CLI uses too). */
export async function isFree(port: number): Promise<boolean> {
  return (await probePort("127.0.0.1", port)).state === "free";
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
