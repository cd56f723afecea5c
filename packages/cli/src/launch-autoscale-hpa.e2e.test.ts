import { getFreePortFollowedBy, waitForOutput } from "@finetune-studio/testing";
import { describe, expect, it } from "vitest";
import { runtimeDirOf } from "./supervise/runtime-dir.js";
import { loadThrough } from "./test/chat-load.js";
import { fakeVllmEnv } from "./test/cli-process.js";
import { CAPACITY, ELASTIC, inState, watchFleet } from "./test/elastic-fleet.js";
import { FLEET_READY, leftOver, smiListing, startFleet } from "./test/fleet-launch.js";
import { stoppedAfterEach } from "./test/stopped-after-each.js";

// `launch --instances 1..3 --scale-rule hpa` on stand-in vLLMs with vLLM's capacity model behind the real
// HAProxy: the HPA's rule reads the fleet at its first sync (15 s after the autoscaler starts) and grows it
// to ceil(total waiting / 2) at once. A file of its own so it runs beside the others.

const running = stoppedAfterEach();

describe("launch --instances MIN..MAX --scale-rule hpa", { timeout: 90_000 }, () => {
  it("grows a queueing fleet at its first sync, saying the HPA's figures, failing no request", async () => {
    const port = await getFreePortFollowedBy(4);
    const fake = fakeVllmEnv(CAPACITY);
    const env = { ...fake.env, PATH: `${smiListing(3)}:${fake.env.PATH}` };
    const proc = startFleet(running, port, env, {
      instances: "1..3",
      more: [...ELASTIC, "--scale-rule", "hpa"],
    });
    await waitForOutput(proc, FLEET_READY, 60_000);
    expect(proc.output()).toContain(
      "over 1 (up to 3, as load asks, by the Kubernetes HPA's rule) vLLM instances",
    );
    const dir = runtimeDirOf(port, env);
    const fleet = watchFleet(dir);
    try {
      // One sync (15 s from the autoscaler's start, about the fleet's ready line) and a 3 s load; the deadline
      // leaves a busy machine room, and the log line below says it was the HPA's step.
      const load = await loadThrough(port, {
        callers: 12,
        minimum: 0,
        triggerAfter: 1,
        trigger: () => fleet.until("a second instance serving", (s) => inState(s, "serving") >= 2, 45_000),
      });
      expect(load.failed).toBe(0);
      expect(proc.output()).toMatch(
        /autoscaler: scaling up: hpa: \d+ waiting in all, target 2 per instance: 1 → [23]/,
      );
      expect(fleet.state?.autoscaler).toMatchObject({ range: "1..3", rule: "hpa" });
    } finally {
      fleet.stop();
    }
    proc.child.kill("SIGINT");
    expect(await proc.exited).toBe(0);
    expect(leftOver([port + 1, port + 2, port + 3], dir)).toEqual([]);
  });
});
