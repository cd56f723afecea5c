import { createServer, type Server } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { firstEphemeralPort, getFreePort, getFreePortFollowedBy } from "./ports.js";

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((done) => server.close(done))));
});

function listenOn(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    servers.push(server);
    server.once("error", reject).listen({ host: "127.0.0.1", port, exclusive: true }, resolve);
  });
}

describe("getFreePort", () => {
  it("gives a free port below the ones the OS hands out by itself", async () => {
    const port = await getFreePort();
    expect(port).toBeLessThan(firstEphemeralPort());
    await listenOn(port);
  });
});

describe("getFreePortFollowedBy", () => {
  it("gives a run of free ports below the ones the OS hands out by itself", async () => {
    const port = await getFreePortFollowedBy(3);
    expect(port).toBeGreaterThanOrEqual(10_000);
    expect(port + 3).toBeLessThan(firstEphemeralPort());
    // Every port of the run can be listened on.
    await Promise.all([0, 1, 2, 3].map((i) => listenOn(port + i)));
  });

  it("never gives a run with a port in use: one that always draws such a run gives up, saying so", async () => {
    const port = await getFreePortFollowedBy(3);
    await listenOn(port + 2);
    const low = 10_000;
    const high = firstEphemeralPort() - 1 - 3;
    const drawsThatRun = () => (port - low + 0.5) / (high - low + 1);
    await expect(getFreePortFollowedBy(3, drawsThatRun)).rejects.toThrow(/no free run of 4 ports/);
  });
});
