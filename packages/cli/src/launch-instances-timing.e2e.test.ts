import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createChatClient } from "@finetune-studio/client";
import { getFreePortFollowedBy, type ManagedProcess, waitForOutput } from "@finetune-studio/testing";
import { describe, expect, it } from "vitest";
import { fakeVllmEnv, tempDir } from "./test/cli-process.js";
import { FLEET_READY, LIGHT_VLLM, startFleet } from "./test/fleet-launch.js";
import { runCapture } from "./test/run-cli.js";
import { stoppedAfterEach } from "./test/stopped-after-each.js";

// launch --instances under bad timing (a second launch while the first loads, Ctrl-C in the middle of a
// reload) and the events it records, with light stand-in vLLMs behind HAProxy.

const running = stoppedAfterEach();

function launchFleet(port: number, env: NodeJS.ProcessEnv, more: string[] = []): ManagedProcess {
  return startFleet(running, port, env, { more });
}

function startedCount(output: string): number {
  return [...output.matchAll(/vLLM started \(pid \d+,/g)].length;
}

describe("launch --instances under bad timing", { timeout: 240_000 }, () => {
  it("a second launch on the same port while the first loads refuses before starting anything", async () => {
    const port = await getFreePortFollowedBy(3);
    const firstEnv = fakeVllmEnv({ ...LIGHT_VLLM, FAKE_VLLM_LOAD_MS: "6000" }).env;
    const first = launchFleet(port, firstEnv);
    await waitForOutput(first, /starting 2 vLLM instances/, 60_000);
    // The same user: the same runtime directory, where the second finds the first.
    const secondFake = fakeVllmEnv({ ...LIGHT_VLLM, XDG_RUNTIME_DIR: firstEnv.XDG_RUNTIME_DIR });
    const second = launchFleet(port, secondFake.env);
    expect(await second.exited).toBe(1);
    expect(second.output()).toContain("another studio-serve launch serves this port");
    expect(secondFake.record()).toBeUndefined();
    // The first keeps its directory and its instances: it becomes ready and answers its control socket.
    await waitForOutput(first, FLEET_READY, 120_000);
    const status = await runCapture(
      ["status", "--launch", String(port), "--json", "--interval", "1"],
      firstEnv,
    );
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout).instances).toHaveLength(2);
  });

  it("Ctrl-C while a reload waits for open requests cancels it: no restart, no 'restarting anyway'", async () => {
    const port = await getFreePortFollowedBy(3);
    const proc = launchFleet(port, fakeVllmEnv({ ...LIGHT_VLLM, FAKE_VLLM_LONG_ANSWER_MS: "60000" }).env);
    await waitForOutput(proc, FLEET_READY, 120_000);
    // One long generation on each instance (least connections spreads them), so the drain has to wait.
    const chat = createChatClient({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 90_000, maxRetries: 0 });
    const long = [0, 1].map(() =>
      chat
        .complete({ model: "acme/m", messages: [{ role: "user", content: "hi" }], max_tokens: 1000 })
        .catch(() => undefined),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    proc.child.kill("SIGHUP");
    await waitForOutput(proc, /waiting for its 1 open requests/, 30_000);
    const startedBefore = startedCount(proc.output());
    proc.child.kill("SIGINT");
    await proc.exited;
    await Promise.all(long);
    expect(proc.output()).toContain("reload: cancelled, launch is stopping");
    expect(proc.output()).not.toContain("restarting anyway");
    expect(startedCount(proc.output())).toBe(startedBefore);
  });

  it("Ctrl-C while a reload stops an instance cancels it: no new vLLM is started", async () => {
    const port = await getFreePortFollowedBy(3);
    const proc = launchFleet(port, fakeVllmEnv({ ...LIGHT_VLLM, FAKE_VLLM_SHUTDOWN_MS: "2500" }).env);
    await waitForOutput(proc, FLEET_READY, 120_000);
    proc.child.kill("SIGHUP");
    await waitForOutput(proc, /waiting for its 0 open requests/, 30_000);
    // The instance now takes 2.5 s to stop: Ctrl-C lands while it stops.
    await new Promise((resolve) => setTimeout(resolve, 500));
    proc.child.kill("SIGINT");
    await proc.exited;
    expect(proc.output()).toContain("reload: cancelled, launch is stopping");
    expect(proc.output()).not.toContain("starting it again");
    expect(startedCount(proc.output())).toBe(2);
  });

  it("records ready and stopped for each instance, as a single launch does", async () => {
    const port = await getFreePortFollowedBy(3);
    const logDir = tempDir("fleet-events-");
    const proc = launchFleet(port, fakeVllmEnv(LIGHT_VLLM).env, ["--log-dir", logDir]);
    await waitForOutput(proc, FLEET_READY, 120_000);
    proc.child.kill("SIGINT");
    await proc.exited;
    const events = readFileSync(join(logDir, "events.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { instance: string; event: string });
    for (const instance of [`vllm-${port + 1}`, `vllm-${port + 2}`]) {
      expect(events.filter((event) => event.instance === instance).map((event) => event.event)).toEqual([
        "started",
        "ready",
        "stopped",
      ]);
    }
  });
});
