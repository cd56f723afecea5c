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

  it("never gives a run holding a port fetch refuses (10080), though it is free", async () => {
    const low = 10_000;
    const high = firstEphemeralPort() - 1 - 3;
    const draws = (port: number) => (port - low + 0.5) / (high - low + 1);
    // Each run that would hold 10080 first, then any.
    const sequence = [10_077, 10_078, 10_079, 10_080].map(draws);
    const port = await getFreePortFollowedBy(3, () => sequence.shift() ?? Math.random());
    expect(sequence).toEqual([]);
    expect(port > 10_080 || port + 3 < 10_080).toBe(true);
    // fetch says why it must be skipped.
    await expect(fetch("http://127.0.0.1:10080/")).rejects.toMatchObject({ cause: { message: "bad port" } });
  });
});
