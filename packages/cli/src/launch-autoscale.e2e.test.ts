import { readFileSync } from "node:fs";
import { join } from "node:path";
import { getFreePortFollowedBy, startPrometheus, waitForOutput } from "@finetune-studio/testing";
import { describe, expect, it } from "vitest";
import { readLaunchState } from "./supervise/launch-state.js";
import { runtimeDirOf } from "./supervise/runtime-dir.js";
import { loadThrough } from "./test/chat-load.js";
import { fakeVllmEnv, tempDir } from "./test/cli-process.js";
import { CAPACITY, ELASTIC, inState, watchFleet } from "./test/elastic-fleet.js";
import {
  FLEET_READY,
  LIGHT_VLLM,
  leftOver,
  reloadBySighup,
  smiListing,
  startFleet,
} from "./test/fleet-launch.js";
import { runCapture } from "./test/run-cli.js";
import { stoppedAfterEach } from "./test/stopped-after-each.js";

// `launch --instances MIN..MAX` on stand-in vLLMs with vLLM's capacity model (each instance runs 2 requests
// at once, 25 ms a token, 3 s to load) behind the real HAProxy, on four stand-in GPUs: a load that queues
// grows the fleet, its end shrinks it, and no request fails on the way; a range keeps the reload and the
// survival of a killed launch. Sleeping and waking: launch-autoscale-sleep.e2e.test.ts.

const running = stoppedAfterEach();

/**
 * The vLLM job's targets Prometheus scrapes (its `up` series, whatever the scrape gave: the instance whose page
 * is not vLLM's is one too), polled until `count` or the deadline.
 */
async function untilScrapedUp(prometheusUrl: string, count: number, withinMs: number): Promise<number> {
  const deadline = Date.now() + withinMs;
  let up = -1;
  while (Date.now() < deadline) {
    const query = encodeURIComponent('count(up{job="vllm"})');
    const response = await fetch(`${prometheusUrl}/api/v1/query?query=${query}`, {
      signal: AbortSignal.timeout(5_000),
    });
    const body = (await response.json()) as { data: { result: { value: [number, string] }[] } };
    up = Number(body.data.result[0]?.value[1] ?? 0);
    if (up === count) return up;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return up;
}

describe("launch --instances MIN..MAX: the local autoscaler", { timeout: 240_000 }, () => {
  it("grows on a queue up to MAX on free GPUs only, and back to MIN once it ends, failing no request", async () => {
    const port = await getFreePortFollowedBy(4);
    // The instance on GPU 2 answers /metrics with a page that is not vLLM's: said, not counted, and the
    // fleet still grows past it (one such instance blocks all scaling in AIBrix); it goes first (with the
    // newest, when two go at once).
    const fake = fakeVllmEnv({ ...CAPACITY, FAKE_VLLM_METRICS: "garbage-on-gpu-2" });
    // GPU 0 is a fine-tuning job's: it keeps it, from the start.
    const env = { ...fake.env, PATH: `${smiListing(4, [0])}:${fake.env.PATH}` };
    const more = [...ELASTIC, "--scale-down-after", "15s"];
    const proc = startFleet(running, port, env, { instances: "1..3", more });
    await waitForOutput(proc, FLEET_READY, 120_000);
    const dir = runtimeDirOf(port, env);
    const fleet = watchFleet(dir);
    // Debian's Prometheus, started once on `prometheus --launch P`'s files: it must follow the fleet.
    const out = join(tempDir("monitoring-"), "monitoring");
    const prometheusArgs = ["prometheus", "--launch", String(port), "--scrape-interval", "1", "--out", out];
    expect((await runCapture(prometheusArgs, env)).code).toBe(0);
    expect(readFileSync(join(out, "prometheus.yml"), "utf8")).toContain(
      `file_sd_configs:\n      - files:\n          - ${join(dir, "prometheus-targets.json")}`,
    );
    const { process: prometheus, url: prometheusUrl } = await startPrometheus(out);
    running.push(prometheus);
    expect(await untilScrapedUp(prometheusUrl, 1, 60_000)).toBe(1);
    try {
      let grewIn = 0;
      const load = await loadThrough(port, {
        callers: 12,
        minimum: 0,
        triggerAfter: 1,
        trigger: async () => {
          // While the autoscaler brings an instance up (3 s to load), a reload waits rather than race it.
          await fleet.until("an instance starting", (s) => inState(s, "starting") >= 1, 30_000);
          const reload = await runCapture(["reload", "--port", String(port)], env);
          expect(`${reload.stdout}${reload.stderr}`).toContain("the autoscaler is moving an instance");
          expect(reload.code).toBe(1);
          grewIn = await fleet.until("a second instance serving", (s) => inState(s, "serving") >= 2, 30_000);
          await fleet.until("MAX serving", (s) => inState(s, "serving") === 3, 60_000);
        },
      });
      expect(grewIn).toBeLessThan(30_000);
      expect(load.failed).toBe(0);
      expect(fleet.most).toBe(3);
      expect(fleet.shared).toEqual([]);
      expect(fleet.state?.instances.map((one) => one.gpu).sort()).toEqual(["1", "2", "3"]);
      expect(proc.output()).toMatch(/autoscaler: scaling up: \d+ waiting .* for 6 s: 1 → [23]/);
      const status = await runCapture(["status", "--launch", String(port), "--interval", "1"], env);
      expect(status.stderr).toMatch(
        /instances on ports \d+ serving, \d+ serving, \d+ serving; autoscaler 1..3: (hold|up) \(/,
      );
      expect(await untilScrapedUp(prometheusUrl, 3, 30_000)).toBe(3);

      // The load ends; a trickle goes on (one caller) through each drain. Two would keep one instance's two
      // slots always busy, which the autoscaler rightly does not shrink to (10% to spare).
      const trickle = await loadThrough(port, {
        callers: 1,
        minimum: 0,
        triggerAfter: 1,
        trigger: () => fleet.until("back to MIN", (s) => s.instances.length === 1, 45_000),
      });
      expect(trickle.failed).toBe(0);
      expect(await untilScrapedUp(prometheusUrl, 1, 30_000)).toBe(1);
      expect(fleet.state?.autoscaler?.range).toBe("1..3");
      expect(proc.output()).toMatch(/autoscaler: scaling down: (one|2) fewer would have fitted for 15 s/);
      const stops = [...proc.output().matchAll(/drained and stopped; GPU (\d) is free/g)].map((m) => m[1]);
      // Drained together when the fleet drops two at once: in either order.
      expect(stops.sort()).toEqual(["2", "3"]);
      expect(proc.output().match(/port \d+\): its metrics cannot be read \(/g)).toHaveLength(1);
    } finally {
      fleet.stop();
    }
    proc.child.kill("SIGINT");
    expect(await proc.exited).toBe(0);
    expect(leftOver([port + 1, port + 2, port + 3], dir)).toEqual([]);
  });

  it("with a range, a dead instance is replaced, a rolling reload fails no request, and a SIGKILLed launch's fleet serves on until stop", async () => {
    const port = await getFreePortFollowedBy(4);
    const fake = fakeVllmEnv(LIGHT_VLLM);
    const dir = runtimeDirOf(port, fake.env);
    const proc = startFleet(running, port, fake.env, { instances: "2..3" });
    await waitForOutput(proc, FLEET_READY, 120_000);
    // An instance that dies frees its slot, and the autoscaler brings the fleet back to MIN.
    const crashed = readLaunchState(dir)?.instances[1]?.group?.pgid;
    process.kill(-(crashed as number), "SIGKILL");
    await waitForOutput(proc, /autoscaler: 1 serving, below the minimum of 2: adding 1/, 30_000);
    await waitForOutput(proc, /autoscaler: instance 1 \(port \d+\) serves, started in/, 60_000);
    const reload = await loadThrough(port, {
      minimum: 1_000,
      triggerAfter: 100,
      trigger: () => reloadBySighup(proc),
    });
    expect(reload.triggerDone).toBe(true);
    expect(reload.failed).toBe(0);
    const killed = await loadThrough(port, {
      minimum: 1_000,
      triggerAfter: 100,
      trigger: async () => {
        proc.child.kill("SIGKILL");
        await proc.exited;
      },
    });
    expect(killed.failed).toBe(0);
    const stopped = await runCapture(["stop", "--port", String(port)], fake.env);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(leftOver([port + 1, port + 2, port + 3], dir)).toEqual([]);
  });
});
