import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { getFreePort, type ManagedProcess, waitForOutput } from "@finetune-studio/testing";
import { describe, expect, it } from "vitest";
import { adapterDir } from "./test/adapter-dir.js";
import { fakeVllmEnv, startCli, tempDir } from "./test/cli-process.js";
import { stoppedAfterEach } from "./test/stopped-after-each.js";

// vLLM resolves a LoRA adapter's path only after it has loaded the base model's weights, so a
// mistyped local path costs a whole load before it fails. launch checks local paths first, by vLLM's rule
// (absolute, `~/`, `.`, or a relative path that exists here is local; anything else is a hub id).

const running = stoppedAfterEach();

function launchLora(
  adapter: string,
  env: NodeJS.ProcessEnv,
  port: number,
  cwd?: string,
  more: readonly string[] = [],
): ManagedProcess {
  const args = ["launch", "lora", "acme/base", "--adapter", adapter, "--port", String(port), ...more];
  const proc = startCli([...args, "--stop-timeout", "5"], env, cwd);
  running.push(proc);
  return proc;
}

describe("launch lora: local adapter paths are checked before vLLM starts", { timeout: 120_000 }, () => {
  const missing = join(tempDir("adapter-missing-"), "no-such-adapter");
  const empty = tempDir("adapter-empty-");
  const gone = adapterDir("deleted");
  const noWeights = adapterDir("no-weights");
  rmSync(join(noWeights, "adapter_model.safetensors"));
  const noAlpha = tempDir("adapter-no-alpha-");
  writeFileSync(join(noAlpha, "adapter_config.json"), '{"r": 8, "target_modules": ["q_proj"]}');
  writeFileSync(join(noAlpha, "adapter_model.safetensors"), "");
  rmSync(gone, { recursive: true });
  mkdirSync(join(empty, "sub"));

  it.each([
    ["an absolute path that does not exist", `sql=${missing}`, /--adapter #1 path: no such directory/],
    ["a deleted adapter", `sql=${gone}`, /--adapter #1 path: no such directory/],
    ["a relative ./ path that does not exist", "sql=./adapters/sql", /--adapter #1 path: no such directory/],
    ["a directory without adapter_config.json", `sql=${empty}`, /has no adapter_config\.json/],
    ["a file, not a directory", `sql=${process.execPath}`, /is not a directory/],
    ["a directory without weights", `sql=${noWeights}`, /holds no adapter weights .*doesn't contain tensors/],
    ["a config without lora_alpha", `sql=${noAlpha}`, /lacks lora_alpha, which vLLM requires/],
  ])("refuses %s with exit code 2, and vLLM never starts", async (_name, adapter, message) => {
    const fake = fakeVllmEnv();
    const proc = launchLora(adapter, fake.env, await getFreePort(), empty);
    expect(await proc.exited).toBe(2);
    expect(proc.output()).toMatch(message);
    expect(proc.output()).toContain("vLLM would load the base model first, then fail");
    expect(fake.record()).toBeUndefined();
  });

  it.each([
    [
      "rank 64 under vLLM's default 16",
      64,
      [],
      /above vLLM's default --max-lora-rank 16.*--max-lora-rank 64 serves it/,
    ],
    [
      "rank 64 under --max-lora-rank 32",
      64,
      ["--max-lora-rank", "32"],
      /above --max-lora-rank 32.*--max-lora-rank 64 serves it/,
    ],
    ["rank 600", 600, ["--max-lora-rank", "512"], /no --max-lora-rank vLLM allows is that large/],
  ])(
    "refuses an adapter of %s with exit code 2, naming the flag that serves it, and vLLM never starts",
    async (_name, rank, more, message) => {
      const fake = fakeVllmEnv();
      const wide = adapterDir("wide", { rank });
      const proc = launchLora(`wide=${wide}`, fake.env, await getFreePort(), undefined, more);
      expect(await proc.exited).toBe(2);
      expect(proc.output()).toMatch(/--max-lora-rank: adapter wide's \(--adapter #1\) rank/);
      expect(proc.output()).toMatch(message);
      expect(fake.record()).toBeUndefined();
    },
  );

  it("passes a hub id and an adapter directory to vLLM as given", async () => {
    const fake = fakeVllmEnv();
    const local = adapterDir("sql");
    const port = await getFreePort();
    const args = ["launch", "lora", "acme/base", "--adapter", "hub=acme/support-lora", "--adapter"];
    const proc = startCli([...args, `sql=${local}`, "--port", String(port), "--stop-timeout", "5"], fake.env);
    running.push(proc);
    await waitForOutput(proc, /^ready: /m, 60_000);
    expect(fake.record()?.argv).toEqual(expect.arrayContaining(["hub=acme/support-lora", `sql=${local}`]));
    proc.child.kill("SIGINT");
    expect(await proc.exited).toBe(0);
  });
});
