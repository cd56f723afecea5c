import { getFreePortFollowedBy, waitForOutput } from "@finetune-studio/testing";
import { describe, expect, it } from "vitest";
import { runtimeDirOf } from "./supervise/runtime-dir.js";
import { loadThrough } from "./test/chat-load.js";
import { fakeVllmEnv } from "./test/cli-process.js";
import { CAPACITY, ELASTIC, inState, watchFleet } from "./test/elastic-fleet.js";
import { FLEET_READY, leftOver, smiListing, startFleet } from "./test/fleet-launch.js";
import { runCapture } from "./test/run-cli.js";
import { stoppedAfterEach } from "./test/stopped-after-each.js";

// `launch --instances 1..2 --idle sleep` on stand-in vLLMs with vLLM's capacity model and sleep mode, behind
// the real HAProxy: the instance a lull frees sleeps out of HAProxy and is woken, not started, when load
// returns; a wake that fails is replaced by one cold start. A file of its own so it runs beside the others.

const running = stoppedAfterEach();

describe("launch --instances MIN..MAX --idle sleep", { timeout: 240_000 }, () => {
  /** A fleet of 1..2 with --idle sleep: grown by a burst, its extra instance asleep, then a new burst. */
  async function sleepThenWake(extra: NodeJS.ProcessEnv, wakeWithinMs: number) {
    const port = await getFreePortFollowedBy(3);
    const fake = fakeVllmEnv({ ...CAPACITY, ...extra });
    const env = { ...fake.env, PATH: `${smiListing(4)}:${fake.env.PATH}` };
    const more = [...ELASTIC, "--scale-down-after", "3s", "--idle", "sleep"];
    const proc = startFleet(running, port, env, { instances: "1..2", more });
    await waitForOutput(proc, FLEET_READY, 120_000);
    const dir = runtimeDirOf(port, env);
    const fleet = watchFleet(dir);
    const starts = () => proc.output().match(/vLLM started \(pid/g)?.length ?? 0;
    const burst = (what: string, withinMs: number) =>
      loadThrough(port, {
        callers: 12,
        minimum: 0,
        triggerAfter: 1,
        trigger: () => fleet.until(what, (s) => inState(s, "serving") === 2, withinMs),
      });
    try {
      expect((await burst("two serving", 30_000)).failed).toBe(0);
      const trickle = await loadThrough(port, {
        callers: 1,
        minimum: 0,
        triggerAfter: 1,
        trigger: () => fleet.until("one asleep", (s) => inState(s, "asleep") === 1, 30_000),
      });
      expect(trickle.failed).toBe(0);
      const sleeper = fleet.state?.instances.find((one) => one.state === "asleep");
      const status = await runCapture(["status", "--launch", String(port), "--interval", "1"], env);
      expect(status.stderr).toContain(`${sleeper?.port} asleep; autoscaler 1..2: `);
      const startsBefore = starts();
      expect((await burst("two serving again", wakeWithinMs)).failed).toBe(0);
      const after = fleet.state?.instances.find((one) => one.port === sleeper?.port);
      return { proc, fake, sleeper, after, startsBefore, startsAfter: starts(), dir, port };
    } finally {
      fleet.stop();
    }
  }

  async function stopFleet(run: Awaited<ReturnType<typeof sleepThenWake>>) {
    run.proc.child.kill("SIGINT");
    expect(await run.proc.exited).toBe(0);
    expect(leftOver([run.port + 1, run.port + 2], run.dir)).toEqual([]);
  }

  it("with --idle sleep puts the extra instance to sleep, out of HAProxy, and wakes the same process within 10 s of new load", async () => {
    // An 8 s cold start: a new instance could not serve within 10 s of the load, a woken one does.
    const run = await sleepThenWake({ FAKE_VLLM_LOAD_MS: "8000" }, 10_000);
    expect(run.after?.group).toEqual(run.sleeper?.group);
    expect(run.startsAfter).toBe(run.startsBefore);
    expect(run.proc.output()).toMatch(/autoscaler: instance 1 \(port \d+\) serves again, woken in/);
    // No request reached it asleep (the stand-in would have crashed, as vLLM does, and counted it).
    expect(run.fake.events().map((event) => event.event)).toEqual(["asleep", "awake"]);
    expect(run.fake.record()?.argv).toContain("--enable-sleep-mode");
    await stopFleet(run);
  });

  it("replaces an instance whose wake fails by a cold start on free GPUs, once, not retried", async () => {
    const run = await sleepThenWake({ FAKE_VLLM_WAKE_FAILS: "1" }, 30_000);
    expect(run.proc.output()).toMatch(
      /autoscaler: instance 1 \(port \d+\): the wake failed \(POST \/wake_up answered 500/,
    );
    expect(run.after?.group).not.toEqual(run.sleeper?.group);
    expect(run.startsAfter).toBe(run.startsBefore + 1);
    expect(run.fake.events().filter((event) => event.event === "wake-failed")).toHaveLength(1);
    await stopFleet(run);
  });
});
