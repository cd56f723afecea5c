import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { getFreePortFollowedBy, type ManagedProcess, waitForOutput } from "@finetune-studio/testing";
import { afterEach, describe, expect, it } from "vitest";
import { runtimeDirOf } from "./supervise/runtime-dir.js";
import { loadThrough } from "./test/chat-load.js";
import { fakeVllmEnv, isAlive } from "./test/cli-process.js";
import { FLEET_READY, LIGHT_VLLM, startFleet } from "./test/fleet-launch.js";
import { runCapture } from "./test/run-cli.js";

// No single point of failure: launch is not in the path of any request, so SIGKILL of launch
// under load fails none; HAProxy and the instances go on serving, and the next `launch` (or `stop`) on the
// port finds them from the state file, stops them all, and says so. Nothing is left either way.

const running: ManagedProcess[] = [];
const ports: { port: number; env: NodeJS.ProcessEnv }[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((proc) => proc.stop()));
  // What a killed launch left is stopped whatever the test's outcome.
  for (const { port, env } of ports.splice(0)) await runCapture(["stop", "--port", String(port)], env);
});

async function launchFleet(port: number, env: NodeJS.ProcessEnv): Promise<ManagedProcess> {
  const proc = startFleet(running, port, env);
  await waitForOutput(proc, FLEET_READY, 120_000);
  return proc;
}

/** A free port, the stand-in's environment, and the launch's directory on that port. */
async function setUp(leaveToStop = true) {
  const port = await getFreePortFollowedBy(3);
  const { env } = fakeVllmEnv(LIGHT_VLLM);
  if (leaveToStop) ports.push({ port, env });
  return { port, env, dir: runtimeDirOf(port, env) };
}

/** The process groups the launch recorded: HAProxy's and each instance's. */
function recordedGroups(dir: string): number[] {
  const state = JSON.parse(readFileSync(join(dir, "state.json"), "utf8")) as {
    balancer: { pgid: number };
    instances: { group: { pgid: number } }[];
  };
  return [state.balancer.pgid, ...state.instances.map((instance) => instance.group.pgid)];
}

/** Every process still alive in those groups. */
function membersOf(groups: readonly number[]): string[] {
  const out = execFileSync("ps", ["-e", "-o", "pid=,pgid=,args="], { encoding: "utf8" });
  return out.split("\n").filter((line) => groups.includes(Number(line.trim().split(/\s+/)[1])));
}

async function killLaunchUnderLoad(proc: ManagedProcess, port: number) {
  return await loadThrough(port, {
    minimum: 1_500,
    triggerAfter: 300,
    trigger: async () => {
      proc.child.kill("SIGKILL");
      await proc.exited;
    },
  });
}

describe("launch --instances when launch itself is killed", { timeout: 300_000 }, () => {
  it("serves on through HAProxy with no failed request; the next launch on the port stops what was left", async () => {
    const { port, env, dir } = await setUp();
    const first = await launchFleet(port, env);
    const groups = recordedGroups(dir);
    expect(groups).toHaveLength(3);

    const load = await killLaunchUnderLoad(first, port);
    console.info(`SIGKILL of launch under load: ${load.failed} failed of ${load.sent} requests`);
    expect(load.triggerDone).toBe(true);
    expect(load.failed).toBe(0);
    expect(membersOf(groups).length).toBeGreaterThanOrEqual(3);

    const status = await runCapture(["status", "--launch", String(port), "--json"], env);
    expect(status.stderr).toMatch(/the launch on port \d+ \(pid \d+\) was killed; HAProxy .* still run/);
    expect(status.code).toBe(0);

    const second = await launchFleet(port, env);
    expect(second.output()).toMatch(
      /the launch before \(pid \d+\) was killed and left HAProxy \(process group \d+\), vLLM instance 0 .* and vLLM instance 1 .* running; stopping them/,
    );
    expect(membersOf(groups)).toEqual([]);
    const newGroups = recordedGroups(dir);
    second.child.kill("SIGINT");
    expect(await second.exited).toBe(0);
    expect(membersOf(newGroups)).toEqual([]);
    expect(existsSync(dir)).toBe(false);
  });

  it("studio-serve stop finds what a killed launch left and stops all of it", async () => {
    const { port, env, dir } = await setUp();
    const first = await launchFleet(port, env);
    const groups = recordedGroups(dir);
    first.child.kill("SIGKILL");
    await first.exited;
    expect(membersOf(groups).length).toBeGreaterThanOrEqual(3);

    const stopped = await runCapture(["stop", "--port", String(port), "--stop-timeout", "5"], env);
    expect(stopped.stderr).toMatch(/was killed and left HAProxy .* running; stopping them/);
    expect(stopped.stderr).toMatch(/nothing of it runs now/);
    expect(stopped.code).toBe(0);
    expect(membersOf(groups)).toEqual([]);
    expect(existsSync(dir)).toBe(false);

    const again = await runCapture(["stop", "--port", String(port)], env);
    expect(again.stderr).toMatch(/no launch runs on port \d+ for this user/);
    expect(again.code).toBe(127);
  });

  it("studio-serve stop stops a running launch as Ctrl-C would, and waits until it is gone", async () => {
    const { port, env, dir } = await setUp(false);
    const proc = await launchFleet(port, env);
    const groups = recordedGroups(dir);
    const stopped = await runCapture(["stop", "--port", String(port)], env);
    expect(stopped.stderr).toMatch(/is stopping HAProxy and its 2 vLLM instances/);
    expect(stopped.stderr).toMatch(/stopped, and everything it ran with it/);
    expect(stopped.code).toBe(0);
    expect(await proc.exited).toBe(0);
    expect(isAlive(proc.child.pid ?? 0)).toBe(false);
    expect(membersOf(groups)).toEqual([]);
  });
});
