import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { Agent } from "node:http";
import { join } from "node:path";
import { getFreePortFollowedBy, waitForOutput } from "@finetune-studio/testing";
import { describe, expect, it } from "vitest";
import { runtimeDirOf } from "./supervise/runtime-dir.js";
import { adapterDir } from "./test/adapter-dir.js";
import { chatOnce, loadThrough } from "./test/chat-load.js";
import { fakeVllmEnv, startCli, tempDir } from "./test/cli-process.js";
import { FLEET_READY, LIGHT_VLLM, leftOver, reloadBySighup, startFleet } from "./test/fleet-launch.js";
import { runCapture } from "./test/run-cli.js";
import { stoppedAfterEach } from "./test/stopped-after-each.js";

// One machine with several GPUs: launch --instances N runs N stand-in vLLMs (light ones,
// without Prism, that refuse connections while loading and cut in-flight requests on SIGTERM as vLLM does)
// behind Debian's real HAProxy. A rolling reload under keep-alive load and streams must fail no request; the
// same reload without the drain (a plain SIGTERM restart, a test-only switch) must fail some (the requests
// and streams it cuts), so the first assertion can fail.

const running = stoppedAfterEach();

async function launchFleet(
  instances: number,
  extraEnv: NodeJS.ProcessEnv = {},
  more: string[] = [],
  serve?: readonly string[],
) {
  const port = await getFreePortFollowedBy(instances + 1); // the instances, then the front door's metrics
  const fake = fakeVllmEnv({ ...LIGHT_VLLM, ...extraEnv });
  const proc = startFleet(running, port, fake.env, {
    instances,
    more,
    ...(serve === undefined ? {} : { serve }),
  });
  await waitForOutput(proc, FLEET_READY, 120_000);
  return { proc, port, env: fake.env };
}

/** The pids launch printed for its vLLM instances, in start order. */
function startedPids(output: string): number[] {
  return [...output.matchAll(/vLLM started \(pid (\d+),/g)].map((match) => Number(match[1]));
}

describe("launch --instances: HAProxy in front, a rolling reload under load", { timeout: 400_000 }, () => {
  it("restarts every instance with SIGHUP while 8 keep-alive callers fail no request, and leaves nothing behind", async () => {
    const { proc, port, env } = await launchFleet(3);
    const dir = runtimeDirOf(port, env);
    expect(existsSync(dir)).toBe(true);
    const before = startedPids(proc.output());
    expect(before).toHaveLength(3);

    const load = await loadThrough(port, {
      minimum: 2_000,
      triggerAfter: 200,
      trigger: () => reloadBySighup(proc),
    });
    console.info(`rolling reload with drain: ${load.failed} failed of ${load.sent} requests`);
    expect(load.triggerDone).toBe(true);
    expect(load.sent).toBeGreaterThanOrEqual(2_000);
    expect(load.failed).toBe(0);

    const after = startedPids(proc.output()).slice(3);
    expect(after).toHaveLength(3);
    for (const pid of after) expect(before).not.toContain(pid);

    proc.child.kill("SIGINT");
    expect(await proc.exited).toBe(0);
    expect(leftOver([port + 1], dir)).toEqual([]);
    expect(existsSync(dir)).toBe(false);
  });

  it("negative control: the same reload without the drain (plain SIGTERM restarts) fails requests", async () => {
    const { proc, port, env } = await launchFleet(3, { STUDIO_SERVE_TEST_ONLY_NO_DRAIN: "1" });
    const load = await loadThrough(port, {
      minimum: 2_000,
      triggerAfter: 200,
      trigger: async () => {
        const reloaded = await runCapture(["reload", "--port", String(port)], env);
        expect(reloaded.code).toBe(0);
      },
    });
    console.info(`rolling reload without drain: ${load.failed} failed of ${load.sent} requests`);
    expect(load.failed).toBeGreaterThan(0);
    proc.child.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    expect(leftOver([port + 1], runtimeDirOf(port, env))).toEqual([]);
  });

  it("an instance that does not come back stops the reload (exit 1); the others keep serving", async () => {
    const flag = join(tempDir("crash-flag-"), "crash");
    const { port, env } = await launchFleet(2, { FAKE_VLLM_CRASH_IF_EXISTS: flag });
    writeFileSync(flag, "");
    const reloaded = await runCapture(["reload", "--port", String(port)], env);
    expect(reloaded.code).toBe(1);
    expect(reloaded.stderr).toMatch(/instance 0 .*did not come back .*Reload stopped/);
    expect(reloaded.stderr).not.toMatch(/instance 1 .*stopped/);
    const agent = new Agent({ keepAlive: true });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => chatOnce(port, agent, i % 2 === 0)),
    );
    agent.destroy();
    expect(answers.every(Boolean)).toBe(true);
  });

  it("an instance that fails to start stops the launch: exit 1, nothing left, directory removed", async () => {
    const port = await getFreePortFollowedBy(3);
    const fake = fakeVllmEnv({ ...LIGHT_VLLM, FAKE_VLLM_MODE: "crash" });
    const proc = startCli(["launch", "full", "acme/m", "--port", String(port), "--instances", "2"], fake.env);
    running.push(proc);
    expect(await proc.exited).toBe(1);
    expect(proc.output()).toMatch(/instance \d \(port \d+\) did not start/);
    expect(leftOver([port + 1], runtimeDirOf(port, fake.env))).toEqual([]);
    expect(existsSync(runtimeDirOf(port, fake.env))).toBe(false);
  });

  it("status --launch reads every instance the launch manages", async () => {
    const { port, env } = await launchFleet(2);
    const shown = await runCapture(["status", "--launch", String(port), "--json", "--interval", "1"], env);
    expect(shown.code, shown.stderr).toBe(0);
    const { instances } = JSON.parse(shown.stdout) as { instances: { url: string; state: string }[] };
    expect(instances.map((instance) => [instance.url, instance.state])).toEqual([
      [`http://127.0.0.1:${port + 1}`, "up"],
      [`http://127.0.0.1:${port + 2}`, "up"],
    ]);
    const none = await runCapture(["status", "--launch", String(await getFreePortFollowedBy(3))], env);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no launch runs on port/);
  });

  it("refuses a reload with one instance: it would drop requests", async () => {
    const { port, env } = await launchFleet(1);
    const reloaded = await runCapture(["reload", "--port", String(port)], env);
    expect(reloaded.code).toBe(1);
    expect(reloaded.stderr).toMatch(/refused with one instance/);
  });
});

describe("studio-serve adapter: runtime LoRA on every instance", { timeout: 300_000 }, () => {
  async function listed(port: number): Promise<string[]> {
    const response = await fetch(`http://127.0.0.1:${port}/v1/models`);
    const models = (await response.json()) as { data: { id: string }[] };
    return models.data.map((model) => model.id);
  }

  it("loads and unloads on each instance, reports vLLM's errors, and a reload loads them again", async () => {
    const logDir = tempDir("fleet-logs-");
    const base = ["lora", "acme/m", "--adapter", `support=${adapterDir("support")}`];
    const { port, env, proc } = await launchFleet(2, {}, ["--runtime-lora", "--log-dir", logDir], base);
    expect(proc.output()).toMatch(/trusted networks only/);
    const sql = adapterDir("sql");
    const load = await runCapture(["adapter", "load", "sql", sql, "--port", String(port)], env);
    expect(load.code).toBe(0);
    expect(load.stderr).toMatch(/instance 0 \(port \d+\): Success: LoRA adapter 'sql' added/);
    expect(load.stderr).toMatch(/instance 1 \(port \d+\): Success: LoRA adapter 'sql' added/);
    expect(await listed(port + 1)).toContain("sql");
    expect(await listed(port + 2)).toContain("sql");

    const again = await runCapture(["adapter", "load", "sql", sql, "--port", String(port)], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      /instance 0 .*failed \(HTTP 400\): The lora adapter 'sql' has already been loaded/,
    );

    const unknown = await runCapture(["adapter", "unload", "nope", "--port", String(port)], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/failed \(HTTP 404\): The lora adapter 'nope' cannot be found/);

    const reloaded = await runCapture(["reload", "--port", String(port)], env);
    expect(reloaded.code).toBe(0);
    expect(reloaded.stderr).toMatch(/instance 1: adapter sql loaded again/);
    expect(await listed(port + 1)).toContain("sql");
    expect(await listed(port + 2)).toContain("sql");
    const events = readFileSync(join(logDir, "events.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { event: string; instance: string; reason?: string });
    const restarted = events.filter((event) => event.event === "restarted");
    expect(restarted.map((event) => event.instance)).toEqual([`vllm-${port + 1}`, `vllm-${port + 2}`]);
    expect(restarted[0]?.reason).toBe("reload");

    const unload = await runCapture(["adapter", "unload", "sql", "--port", String(port)], env);
    expect(unload.code).toBe(0);
    expect(await listed(port + 1)).not.toContain("sql");
    expect(await listed(port + 2)).not.toContain("sql");
  });

  it("without --runtime-lora, vLLM has no such route and adapter says so; streams flow through HAProxy", async () => {
    const { port, env } = await launchFleet(2);
    const streamed = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "acme/m", messages: [{ role: "user", content: "hi" }], stream: true }),
    });
    expect(streamed.headers.get("content-type")).toMatch(/text\/event-stream/);
    const text = await streamed.text();
    expect(text.match(/"chat\.completion\.chunk"/g)).toHaveLength(3);
    expect(text).toMatch(/data: \[DONE\]\n\n$/);
    const load = await runCapture(["adapter", "load", "sql", adapterDir("sql"), "--port", String(port)], env);
    expect(load.code).toBe(1);
    expect(load.stderr).toMatch(/this launch was started without --runtime-lora/);
  });

  it("adapter and reload say when no launch serves the port", async () => {
    const port = await getFreePortFollowedBy(3);
    const result = await runCapture(["adapter", "unload", "sql", "--port", String(port)], process.env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/no launch runs on port/);
  });
});
