import { existsSync } from "node:fs";
import { getFreePortFollowedBy } from "@finetune-studio/testing";
import { afterEach, describe, expect, it } from "vitest";
import { LAUNCH_FLAGS } from "../commands/launch.js";
import { readLaunchSettings } from "../instance/launch-settings.js";
import { gpuAskedOnce } from "../plan/plan-input.js";
import type { CliIo } from "../shared/io.js";
import { parseServeArgs } from "../shared/serve-args.js";
import { loadThrough } from "../test/chat-load.js";
import { fakeVllmEnv } from "../test/cli-process.js";
import { LIGHT_VLLM, leftOver } from "../test/fleet-launch.js";
import { haproxyDoor } from "./haproxy-door.js";
import { readLaunchState } from "./launch-state.js";
import { parseLayout } from "./layout.js";
import { IllegalTransition } from "./life-cycle.js";
import { runtimeDirOf } from "./runtime-dir.js";
import { Supervisor } from "./supervisor.js";

// The supervisor's operations the autoscaler will call (drainAndStop, add), run in this process on a fleet of
// light stand-in vLLMs behind Debian's real HAProxy, under keep-alive load: no request may fail on the way
// down or up, and the state file follows every move.

const started: { supervisor: Supervisor; exited: Promise<number> }[] = [];
afterEach(async () => {
  for (const { supervisor, exited } of started.splice(0)) {
    if (!supervisor.stopped.aborted) supervisor.stopOn("SIGTERM");
    await exited;
  }
});

async function until(done: () => boolean, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
}

async function startSupervisor(instances: number) {
  const port = await getFreePortFollowedBy(instances + 1);
  const { env } = fakeVllmEnv(LIGHT_VLLM);
  const output: string[] = [];
  const io: CliIo = { out: (text) => output.push(text), err: (text) => output.push(text), env };
  const args = ["full", "acme/m", "--port", String(port), "--instances", String(instances)];
  const parsed = parseServeArgs("launch", [...args, "--stop-timeout", "5"], LAUNCH_FLAGS);
  if (parsed === "help") throw new Error("not a launch");
  const plan = readLaunchSettings(parsed, io);
  const dir = runtimeDirOf(port, env);
  const planGpu = gpuAskedOnce(parsed, env, "launch full");
  const layout = parseLayout(parsed);
  const door = await haproxyDoor({ parsed, layout, plan, extraEnv: {}, io, planGpu, helpFor: "launch", dir });
  const supervisor = new Supervisor(plan, io, dir, undefined, door);
  const exited = supervisor.run();
  started.push({ supervisor, exited });
  await until(() => supervisor.ready || supervisor.stopped.aborted, 120_000);
  if (!supervisor.ready) throw new Error(`the fleet did not serve:\n${output.join("")}`);
  const states = () => readLaunchState(dir)?.instances.map((instance) => instance.state);
  return { supervisor, exited, port, dir, states };
}

describe("the supervisor's operations for the autoscaler", { timeout: 240_000 }, () => {
  it("drainAndStop takes an instance out and add brings one up in its slot, failing no request", async () => {
    const { supervisor, exited, port, dir, states } = await startSupervisor(2);
    expect(states()).toEqual(["serving", "serving"]);
    const [first, second] = supervisor.instances;
    if (first === undefined || second === undefined) throw new Error("two instances expected");
    const secondPgid = second.pgid;
    const load = await loadThrough(port, {
      minimum: 600,
      triggerAfter: 100,
      trigger: async () => {
        expect(await supervisor.drainAndStop(second, "scaled down")).toBe(true);
        expect(second.state).toBe("stopped");
        expect(supervisor.instances).toEqual([first]);
        expect(states()).toEqual(["serving"]);
        const added = await supervisor.add("1");
        expect(added?.index).toBe(1);
        expect(added?.state).toBe("serving");
        expect(added?.pgid).not.toBe(secondPgid);
        expect(states()).toEqual(["serving", "serving"]);
      },
    });
    expect(load.triggerDone).toBe(true);
    expect(load.failed).toBe(0);

    // Never below one serving instance: the last one is not drained, and no move skips the drain.
    expect(await supervisor.drainAndStop(first, "scaled down")).toBe(true);
    const last = supervisor.instances[0];
    expect(last?.index).toBe(1);
    expect(await supervisor.drainAndStop(last as NonNullable<typeof last>, "scaled down")).toBe(false);
    expect(last?.state).toBe("serving");
    expect(() => last?.moveTo("asleep")).toThrow(IllegalTransition);
    expect(states()).toEqual(["serving"]);

    supervisor.stopOn("SIGTERM");
    expect(await exited).toBe(0);
    expect(existsSync(dir)).toBe(false);
    expect(leftOver([port + 1, port + 2], dir)).toEqual([]);
  });

  it("add refuses a slot the front door has no room for, and starts nothing", async () => {
    const { supervisor, states } = await startSupervisor(2);
    const said: string[] = [];
    expect(await supervisor.add("2", (line) => said.push(line))).toBeUndefined();
    expect(said).toEqual(["no room for instance 2 in the front door's configuration"]);
    expect(supervisor.instances).toHaveLength(2);
    expect(states()).toEqual(["serving", "serving"]);
  });
});
