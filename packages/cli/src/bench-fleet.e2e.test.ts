import { getFreePortFollowedBy, waitForOutput } from "@finetune-studio/testing";
import { describe, expect, it } from "vitest";
import { fakeVllmEnv, startCli } from "./test/cli-process.js";
import { FLEET_READY, LIGHT_VLLM, startFleet } from "./test/fleet-launch.js";
import { stoppedAfterEach } from "./test/stopped-after-each.js";

// A sweep through a launch's front door measures its fleet, not one instance: the capacity says so, and a
// target rate is sized per instance (the fleet's capacity over its instances, as the launch's state counts them).

const running = stoppedAfterEach();

function bench(port: number, env: NodeJS.ProcessEnv, more: readonly string[]) {
  const args = ["bench", "--launch", String(port), "--sweep", "rate:4,8", "--requests", "12"];
  const proc = startCli([...args, "--slo", "ttft=5s", "--target-rps", "40", ...more], env);
  running.push(proc);
  return proc;
}

describe("bench --launch P --sweep through a fleet of 2", { timeout: 240_000 }, () => {
  it("says it measured the fleet of 2 and sizes the target per instance", async () => {
    const port = await getFreePortFollowedBy(3); // two instances and the front door's metrics
    const fake = fakeVllmEnv(LIGHT_VLLM);
    const launch = startFleet(running, port, fake.env, { instances: 2 });
    await waitForOutput(launch, FLEET_READY, 120_000);

    const json = bench(port, fake.env, ["--json"]);
    expect(await json.exited).toBe(0);
    const output = json.output();
    const document = JSON.parse(output.slice(output.indexOf("{"), output.lastIndexOf("}") + 1));
    const capacity = document.capacity;
    expect(capacity.measuredInstances).toBe(2);
    expect(capacity.perInstanceRequestsPerSecond).toBeCloseTo(capacity.requestsPerSecond / 2, 10);
    // ceil(R / (per-instance capacity × (1 - headroom))): twice what the fleet's capacity as one would give.
    expect(capacity.instances).toBe(Math.ceil(40 / (capacity.perInstanceRequestsPerSecond * 0.8)));

    const text = bench(port, fake.env, []);
    expect(await text.exited).toBe(0);
    expect(text.output()).toMatch(
      new RegExp(
        `capacity: the fleet of 2 instances of the launch on port ${port} serves request rate \\(req/s\\) \\d+ within the SLOs .*good req/s together, [\\d.]+ per instance`,
      ),
    );
    expect(text.output()).toMatch(
      /for 40 req\/s: launch --instances \d+ .*\([\d.]+ good req\/s per instance\)/,
    );
  });
});
