import { existsSync } from "node:fs";
import { getFreePort, getFreePortFollowedBy, startProcess, waitForOutput } from "@finetune-studio/testing";
import { describe, expect, it } from "vitest";
import { runtimeDirOf } from "./supervise/runtime-dir.js";
import { CLI, exitOf, fakeVllmEnv, isAlive, startCli } from "./test/cli-process.js";
import { LIGHT_VLLM, leftOver } from "./test/fleet-launch.js";
import { runCapture } from "./test/run-cli.js";
import { stoppedAfterEach } from "./test/stopped-after-each.js";

// A launch of one is a launch like any other (`status --launch`, `stop`, `reload` and `bench
// --launch` find it), and whatever way launch ends, a closed output pipe included, it leaves no process
// and no runtime directory behind.

const running = stoppedAfterEach();

async function launchOne() {
  const port = await getFreePort();
  const fake = fakeVllmEnv(LIGHT_VLLM);
  const proc = startCli(
    ["launch", "full", "acme/m", "--port", String(port), "--stop-timeout", "5"],
    fake.env,
  );
  running.push(proc);
  await waitForOutput(proc, /^ready: /m, 60_000);
  return { proc, port, fake, dir: runtimeDirOf(port, fake.env) };
}

describe("a launch of one is a launch", { timeout: 180_000 }, () => {
  it("status --launch, reload, bench --launch and stop --port find it; stop leaves nothing", async () => {
    const { proc, port, fake, dir } = await launchOne();
    expect(existsSync(dir)).toBe(true);
    const url = `http://127.0.0.1:${port}`;

    const status = await runCapture(
      ["status", "--launch", String(port), "--interval", "1", "--json"],
      fake.env,
    );
    expect(status.code, status.stderr).toBe(0);
    const shown = JSON.parse(status.stdout) as { instances: { url: string; state: string }[] };
    expect(shown.instances.map((instance) => [instance.url, instance.state])).toEqual([[url, "up"]]);

    // Found, and refused for its own reason: one instance cannot restart without failing requests.
    const reload = await runCapture(["reload", "--port", String(port)], fake.env);
    expect(reload.code).toBe(1);
    expect(reload.stderr).toContain("reload: refused with one instance");

    const bench = await runCapture(
      ["bench", "--launch", String(port), "--concurrency", "1", "--requests", "2"],
      fake.env,
    );
    // It reached the launch's server and sent its requests (how the stand-in answers them is bench's matter).
    expect(bench.stderr).toMatch(/bench: concurrency 1: 2 done/);

    const stop = await runCapture(["stop", "--port", String(port)], fake.env);
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stderr).toContain(`is stopping vLLM`);
    expect(stop.stderr).toContain(`the launch on port ${port} stopped`);
    expect(await exitOf(proc, 30_000)).toBe(0);
    expect(isAlive(fake.record()?.pid ?? 0)).toBe(false);
    expect(existsSync(dir)).toBe(false);
  });

  it("stop --port finds the vLLM a killed launch of one left, and stops it", async () => {
    const { proc, port, fake, dir } = await launchOne();
    proc.child.kill("SIGKILL");
    await proc.exited;
    const pid = fake.record()?.pid ?? 0;
    expect(isAlive(pid)).toBe(true);

    const status = await runCapture(["status", "--launch", String(port), "--interval", "1"], fake.env);
    expect(status.stderr).toMatch(/was killed; vLLM \(port \d+\) \(process group \d+\) still run/);
    expect(status.code, status.stderr).toBe(0);

    const stop = await runCapture(["stop", "--port", String(port), "--stop-timeout", "5"], fake.env);
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stderr).toContain("stopped what the launch before left");
    expect(isAlive(pid)).toBe(false);
    expect(existsSync(dir)).toBe(false);
  });
});

describe("launch whose output pipe closes (`2>&1 | head -5`)", { timeout: 240_000 }, () => {
  it.each([
    ["a launch of one", 1],
    ["launch --instances 2", 2],
  ])("%s stops in order and leaves no process and no runtime directory", async (_name, instances) => {
    const port = instances === 1 ? await getFreePort() : await getFreePortFollowedBy(instances + 1);
    const fake = fakeVllmEnv(LIGHT_VLLM);
    const fleet = instances === 1 ? "" : ` --instances ${instances}`;
    const command = `"${process.execPath}" "${CLI}" launch full acme/m --port ${port}${fleet} --stop-timeout 5 2>&1 | head -5`;
    const pipeline = startProcess("sh", ["-c", command], { env: fake.env });
    running.push(pipeline);
    // The pipeline ends when launch does: head has its five lines long before anything is ready.
    expect(await exitOf(pipeline, 120_000)).toBe(0);
    expect(pipeline.output().trim().split("\n")).toHaveLength(5);
    const ports = instances === 1 ? [port] : Array.from({ length: instances }, (_, i) => port + 1 + i);
    const dir = runtimeDirOf(port, fake.env);
    expect(leftOver(ports, dir)).toEqual([]);
    expect(existsSync(dir)).toBe(false);
  });
});
