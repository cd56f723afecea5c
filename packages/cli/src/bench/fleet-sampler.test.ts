import { rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { FleetSecondSample } from "@finetune-studio/serve-kit/internal";
import { VllmMetricsPage } from "@finetune-studio/testing";
import { afterEach, describe, expect, it } from "vitest";
import { writeLaunchState } from "../supervise/launch-state.js";
import type { InstanceState } from "../supervise/life-cycle.js";
import { tempDir } from "../test/cli-process.js";
import { type FleetSamplerOptions, sampleFleet } from "./fleet-sampler.js";

// The staged bench's fleet sampler against real HTTP servers standing in for a launch's instances, and a
// real state file it rereads at each sample, as a launch (and its autoscaler) rewrites it.

type Answer = "page" | "503" | "silent";
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** An instance: its /metrics page says `waiting`, or it answers 503, or never. */
async function instance(waiting: number) {
  const page = new VllmMetricsPage({ models: ["acme/m"] });
  page.setScheduler({ running: 1, waiting });
  const control = { answer: "page" as Answer, page };
  const server = createServer((request, response) => {
    if (control.answer === "silent") return;
    if (control.answer === "503" || request.url !== "/metrics") response.writeHead(503).end();
    else response.writeHead(200, { "content-type": "text/plain" }).end(control.page.render());
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { control, port: (server.address() as AddressInfo).port };
}

function writeState(dir: string, instances: readonly { port: number; state: InstanceState }[]) {
  writeLaunchState(dir, {
    launch: { pid: process.pid, startTicks: "1" },
    host: "127.0.0.1",
    port: 1,
    balancer: undefined,
    instances: instances.map(({ port, state }, i) => ({ port, gpu: String(i), state, group: undefined })),
  });
}

/** A sampler whose samples can be awaited: `next(holds)` resolves with the first later sample that holds. */
function sampler(dir: string, more: Partial<FleetSamplerOptions> = {}) {
  const warnings: string[] = [];
  let waiter:
    | { holds: (s: FleetSecondSample) => boolean; resolve: (s: FleetSecondSample) => void }
    | undefined;
  const running = sampleFleet({
    dir,
    name: "--launch 1",
    originMs: performance.now(),
    warn: (text) => warnings.push(text),
    intervalMs: 20,
    onSample: (sample) => {
      if (waiter?.holds(sample)) waiter.resolve(sample);
    },
    ...more,
  });
  const next = (holds: (s: FleetSecondSample) => boolean) =>
    new Promise<FleetSecondSample>((resolve) => {
      waiter = { holds, resolve };
    });
  return { running, next, warnings };
}

describe("the staged bench's fleet sampler", () => {
  it("counts the serving instances the state file lists at each sample and sums their waiting requests", async () => {
    const dir = tempDir("sampler-");
    const [a, b, c] = [await instance(3), await instance(4), await instance(9)];
    writeState(dir, [
      { port: a.port, state: "serving" },
      { port: b.port, state: "starting" }, // not serving yet: not read, not counted
    ]);
    const { running, next, warnings } = sampler(dir);
    expect(await next(() => true)).toMatchObject({ serving: 1, queue: 3 });

    // An instance added (an autoscaler's), then one draining: its waiting requests are still the fleet's.
    writeState(dir, [
      { port: a.port, state: "serving" },
      { port: b.port, state: "serving" },
    ]);
    expect(await next((s) => s.serving === 2)).toMatchObject({ serving: 2, queue: 7 });
    writeState(dir, [
      { port: a.port, state: "draining" },
      { port: b.port, state: "serving" },
      { port: c.port, state: "asleep" }, // out of the balancer: neither serving nor read
    ]);
    expect(await next((s) => s.serving === 1)).toMatchObject({ serving: 1, queue: 7 });

    const samples = await running.stop();
    expect(samples.length).toBeGreaterThanOrEqual(3);
    expect(samples.every((s, i) => i === 0 || s.timeMs >= (samples[i - 1] as FleetSecondSample).timeMs)).toBe(
      true,
    );
    expect(warnings).toEqual([]);
  });

  it("leaves the queue unknown, not 0, while an instance's page cannot be read, and says so once", async () => {
    const dir = tempDir("sampler-");
    const [a, b] = [await instance(2), await instance(5)];
    writeState(dir, [
      { port: a.port, state: "serving" },
      { port: b.port, state: "serving" },
    ]);
    const { running, next, warnings } = sampler(dir);
    expect(await next(() => true)).toMatchObject({ serving: 2, queue: 7 });
    b.control.answer = "503";
    expect(await next((s) => s.queue === null)).toMatchObject({ serving: 2, queue: null });
    await next((s) => s.queue === null); // a second unknown sample: no second warning
    b.control.answer = "page";
    expect(await next((s) => s.queue !== null)).toMatchObject({ serving: 2, queue: 7 });
    await running.stop();
    expect(warnings).toEqual([
      `studio-serve: warning: the queue is unknown while http://127.0.0.1:${b.port}/metrics cannot be read (/metrics answered 503): it is not counted as 0`,
    ]);
  });

  it("bounds each read in time: a page that never comes is unknown for its sample", async () => {
    const dir = tempDir("sampler-");
    const silent = await instance(1);
    silent.control.answer = "silent";
    writeState(dir, [{ port: silent.port, state: "serving" }]);
    const started = performance.now();
    const { running, next, warnings } = sampler(dir, { timeoutMs: 200 });
    expect(await next(() => true)).toMatchObject({ serving: 1, queue: null });
    // A timer may fire a millisecond before performance.now() says its time came, never sooner.
    expect(performance.now() - started).toBeGreaterThanOrEqual(199);
    await running.stop();
    expect(warnings[0]).toMatch(/cannot be read \(\/metrics: no answer within 0.2 s\)/);
  });

  it("samples an unknown fleet without a launch state (not the last figures), and says why once", async () => {
    const dir = tempDir("sampler-");
    const a = await instance(2);
    writeState(dir, [{ port: a.port, state: "serving" }]);
    const { running, next, warnings } = sampler(dir);
    expect(await next(() => true)).toMatchObject({ serving: 1, queue: 2 });
    rmSync(join(dir, "state.json"));
    expect(await next((s) => s.serving === null)).toMatchObject({ serving: null, queue: null });
    await next((s) => s.serving === null); // a second one: no second warning
    const samples = await running.stop();
    expect(samples.at(-1)).toMatchObject({ serving: null, queue: null });
    expect(warnings).toEqual([
      `studio-serve: warning: --launch 1: no launch state in ${dir}: the timeline has no instances or queue while there is none`,
    ]);
  });
});
