import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { getFreePort, waitForOutput } from "@finetune-studio/testing";
import { describe, expect, it } from "vitest";
import { adapterDir } from "./test/adapter-dir.js";
import { fakeVllmEnv, startCli, tempDir } from "./test/cli-process.js";
import { LIGHT_VLLM } from "./test/fleet-launch.js";
import { runCapture } from "./test/run-cli.js";
import { stoppedAfterEach } from "./test/stopped-after-each.js";

// `adapter load` on a launch of one, with the stand-in vLLM reading adapter paths as vLLM does: a relative
// path in its own working directory (the launch's), a missing directory 404, a rank above --max-lora-rank
// 400. The CLI sends what vLLM can load, or refuses before sending and says why.

const running = stoppedAfterEach();

async function launchOne(more: readonly string[], serve?: readonly string[]) {
  const port = await getFreePort();
  const fake = fakeVllmEnv(LIGHT_VLLM);
  const launchDir = tempDir("launch-cwd-");
  const lora = ["lora", "acme/base", "--adapter", `base=${adapterDir("base", { rank: 8 })}`];
  const args = ["launch", ...(serve ?? lora), "--port", String(port)];
  const proc = startCli([...args, "--stop-timeout", "5", ...more], fake.env, launchDir);
  running.push(proc);
  await waitForOutput(proc, /^ready: /m, 60_000);
  return { port, env: fake.env };
}

/** `studio-serve adapter ...` run from `cwd`, as a person would in another terminal. */
async function adapter(args: readonly string[], env: NodeJS.ProcessEnv, cwd: string) {
  const proc = startCli(["adapter", ...args], env, cwd);
  running.push(proc);
  return { code: await proc.exited, output: proc.output() };
}

async function servedAdapters(port: number): Promise<Record<string, string>> {
  const response = await fetch(`http://127.0.0.1:${port}/v1/models`);
  const models = (await response.json()) as { data: { id: string; root: string; parent: string | null }[] };
  return Object.fromEntries(models.data.filter((m) => m.parent !== null).map((m) => [m.id, m.root]));
}

describe("adapter load: what vLLM gets is what it can load", { timeout: 180_000 }, () => {
  it("sends a relative path as the caller's absolute one, refuses what vLLM cannot load, and names the rank that serves it", async () => {
    const { port, env } = await launchOne(["--runtime-lora", "--max-lora-rank", "16"]);
    const here = tempDir("caller-cwd-");
    adapterDir("sql", { parent: here });
    const sent = await adapter(["load", "sql", "./sql", "--port", String(port)], env, here);
    expect(sent.output).toContain(`./sql is ${realpathSync(join(here, "sql"))}`);
    expect(sent.code).toBe(0);
    expect((await servedAdapters(port)).sql).toBe(realpathSync(join(here, "sql")));

    const missing = await adapter(["load", "gone", "./no-such-adapter", "--port", String(port)], env, here);
    expect(missing.code).toBe(2);
    expect(missing.output).toMatch(/<path>: no such directory on this machine .*nothing was sent/);

    mkdirSync(join(here, "no-weights"));
    const config = { r: 8, lora_alpha: 16, target_modules: ["q_proj"] };
    writeFileSync(join(here, "no-weights", "adapter_config.json"), JSON.stringify(config));
    const empty = await adapter(["load", "empty", "./no-weights", "--port", String(port)], env, here);
    expect(empty.code).toBe(2);
    expect(empty.output).toMatch(/holds no adapter weights/);

    adapterDir("wide", { parent: here, rank: 64 });
    const wide = await adapter(["load", "wide", "./wide", "--port", String(port)], env, here);
    expect(wide.code).toBe(1);
    expect(wide.output).toMatch(
      /refused before anything was sent: adapter wide's rank 64 is above --max-lora-rank 16/,
    );
    expect(wide.output).toMatch(/--max-lora-rank 64 serves it/);
    expect(Object.keys(await servedAdapters(port)).sort()).toEqual(["base", "sql"]);
  });

  it("launch full --runtime-lora is refused before anything starts: vLLM serves a full model without LoRA", async () => {
    const fake = fakeVllmEnv(LIGHT_VLLM);
    const result = await runCapture(["launch", "full", "acme/m", "--runtime-lora"], fake.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--runtime-lora: vLLM serves a full model without LoRA/);
    expect(result.stderr).toMatch(/launch lora BASE --adapter NAME=PATH --runtime-lora/);
    expect(fake.record()).toBeUndefined();
  });

  it("on a launch without --runtime-lora, says so and what to do instead of a bare HTTP 404", async () => {
    const { port, env } = await launchOne([]);
    const dir = adapterDir("sql");
    const result = await adapter(["load", "sql", dir, "--port", String(port)], env, tempDir("caller-cwd-"));
    expect(result.code).toBe(1);
    expect(result.output).toMatch(/this launch was started without --runtime-lora/);
    expect(result.output).toMatch(/launch again with --runtime-lora/);
  });
});
