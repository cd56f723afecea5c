import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { probePort } from "./port-probe.js";

describe("probePort", () => {
  it("tells a free port from a taken one, and an address this machine does not have", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    try {
      expect(await probePort("127.0.0.1", port)).toEqual({ state: "in-use" });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(await probePort("127.0.0.1", port)).toEqual({ state: "free" });
    expect(await probePort("192.0.2.1", port)).toEqual({ state: "unusable", reason: "EADDRNOTAVAIL" });
  });
});
