import { getFreePortFollowedBy, waitForOutput } from "@finetune-studio/testing";
import { describe, expect, it } from "vitest";
import { fakeVllmEnv, tempDir } from "./test/cli-process.js";
import { FLEET_READY, LIGHT_VLLM, startFleet } from "./test/fleet-launch.js";
import { runCapture } from "./test/run-cli.js";
import { stoppedAfterEach } from "./test/stopped-after-each.js";

// `status` on the URL `launch --instances 2` prints. Each read through HAProxy may land on another
// instance, so two /metrics reads of that URL would mix two instances' counters (token rates and "restarted"
// on idle instances). status recognises a launch's front door by the launch's state and shows its instances;
// behind a balancer it cannot recognise (here: the same HAProxy, with the launch's state out of sight), the
// reads' process start times differ, and it says so instead of showing a mix.

const running = stoppedAfterEach();

interface Shown {
  instances: { url: string; state: string; detail: string | null; metrics: { restarted: boolean } | null }[];
}

describe("status on a launch's front door", { timeout: 180_000 }, () => {
  it("shows the instances behind it, each on its own, and refuses to mix what it cannot tell apart", async () => {
    const port = await getFreePortFollowedBy(3); // two instances and the front door's metrics
    const fake = fakeVllmEnv(LIGHT_VLLM);
    const proc = startFleet(running, port, fake.env);
    await waitForOutput(proc, FLEET_READY, 120_000);
    const door = `http://127.0.0.1:${port}`;

    const status = await runCapture(["status", door, "--json", "--interval", "1"], fake.env);
    expect(status.stderr).toContain(
      `${door} is the front door (HAProxy) of the launch on port ${port}: showing its 2 instances, as --launch ${port} does`,
    );
    expect(status.code, status.stderr).toBe(0);
    const shown = JSON.parse(status.stdout) as Shown;
    expect(shown.instances.map((instance) => [instance.url, instance.state])).toEqual([
      [`http://127.0.0.1:${port + 1}`, "up"],
      [`http://127.0.0.1:${port + 2}`, "up"],
    ]);
    for (const instance of shown.instances) expect(instance.metrics?.restarted).toBe(false);

    // The same HAProxy, seen by a user whose runtime directory holds no launch: a balancer like any other.
    // HAProxy may send a run of reads to one instance (not a mix: one process's counters; a run of five was
    // seen once while three other launches shared the cores); asked again, it answers from both, and status
    // must then say so.
    const elsewhere = { ...fake.env, XDG_RUNTIME_DIR: tempDir("runtime-") };
    let blind = await runCapture(["status", door, "--json", "--interval", "1"], elsewhere);
    for (let tries = 1; tries < 15 && blind.code === 0; tries += 1) {
      expect((JSON.parse(blind.stdout) as Shown).instances[0]?.state).toBe("up");
      blind = await runCapture(["status", door, "--json", "--interval", "1"], elsewhere);
    }
    expect(blind.code).toBe(1);
    const [mixed] = (JSON.parse(blind.stdout) as Shown).instances;
    expect(mixed).toMatchObject({ url: door, state: "mixed", metrics: null });
    expect(mixed?.detail).toMatch(/^\/metrics answered from 2 processes \(started .* and .*\): a balancer/);
    expect(mixed?.detail).toContain("use --launch P");

    // Each instance on its own is one process: up, as before.
    const direct = await runCapture(["status", `http://127.0.0.1:${port + 1}`, "--interval", "1"], elsewhere);
    expect(direct.code, direct.stdout).toBe(0);
    proc.child.kill("SIGINT");
    expect(await proc.exited).toBe(0);
  });
});
