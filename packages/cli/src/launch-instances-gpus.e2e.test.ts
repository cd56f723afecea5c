import { readFileSync } from "node:fs";
import { join } from "node:path";
import { getFreePort, getFreePortFollowedBy, waitForOutput } from "@finetune-studio/testing";
import { describe, expect, it } from "vitest";
import { runtimeDirOf } from "./supervise/runtime-dir.js";
import { fakeVllmEnv } from "./test/cli-process.js";
import { FLEET_READY, LIGHT_VLLM, smiListing, startFleet } from "./test/fleet-launch.js";
import { runCapture } from "./test/run-cli.js";
import { stoppedAfterEach } from "./test/stopped-after-each.js";

// `launch --instances N --tensor-parallel-size T` gives each instance T GPUs of its own. vLLM shards
// the model over the GPUs it sees and refuses a tensor parallel size above their count (the stand-in does as
// vLLM's multiproc executor does), so one GPU per instance told TP 2 could never start. Too few GPUs on the
// machine is refused before anything starts.

const running = stoppedAfterEach();

describe("launch --instances N --tensor-parallel-size T", { timeout: 180_000 }, () => {
  it("gives each instance T GPUs of its own, and each starts", async () => {
    const port = await getFreePortFollowedBy(3); // two instances and the front door's metrics
    const fake = fakeVllmEnv(LIGHT_VLLM);
    const env = { ...fake.env, PATH: `${smiListing(4)}:${fake.env.PATH}` };
    const proc = startFleet(running, port, env, { more: ["--tensor-parallel-size", "2"] });
    await waitForOutput(proc, FLEET_READY, 120_000);
    const output = proc.output();
    expect(output).toContain("starting 2 vLLM instances (GPUs 0,1 | 2,3;");
    expect(output).toMatch(/^\[vllm-0\] INFO visible GPUs \(CUDA_VISIBLE_DEVICES\): 0,1$/m);
    expect(output).toMatch(/^\[vllm-1\] INFO visible GPUs \(CUDA_VISIBLE_DEVICES\): 2,3$/m);
    proc.child.kill("SIGINT");
    expect(await proc.exited).toBe(0);
  });

  it("refuses when nvidia-smi lists fewer GPUs than N x T, before anything starts", async () => {
    const fake = fakeVllmEnv(LIGHT_VLLM);
    const env = { ...fake.env, PATH: `${smiListing(2)}:${fake.env.PATH}` };
    const port = String(await getFreePort());
    const args = [
      "launch",
      "full",
      "acme/m",
      "--port",
      port,
      "--instances",
      "2",
      "--tensor-parallel-size",
      "2",
    ];
    const result = await runCapture(args, env);
    expect(result.stderr).toMatch(
      /--instances: 2 instances of 2 GPUs need 4; this machine has no GPU 2, 3 \(nvidia-smi -L lists them\)/,
    );
    expect(result.code).toBe(1);
    expect(fake.record()).toBeUndefined();
  });

  it("sends each instance at most what vLLM batches by default on the GPU: 256 on an L4, 1024 on an H100", async () => {
    for (const [gpu, batch] of [
      ["L4", 256],
      ["H100", 1024],
    ] as const) {
      const port = await getFreePortFollowedBy(3);
      const fake = fakeVllmEnv(LIGHT_VLLM);
      const env = { ...fake.env, PATH: `${smiListing(2)}:${fake.env.PATH}` };
      const proc = startFleet(running, port, env, { more: ["--gpu", gpu] });
      await waitForOutput(proc, FLEET_READY, 120_000);
      const config = readFileSync(join(runtimeDirOf(port, env), "haproxy.cfg"), "utf8");
      const perInstance = [...config.matchAll(/^\s*(?:default-)?server\b.* maxconn (\d+)/gm)];
      expect(perInstance.length, gpu).toBeGreaterThan(0);
      expect(new Set(perInstance.map((match) => Number(match[1]))), gpu).toEqual(new Set([batch]));
      proc.child.kill("SIGINT");
      expect(await proc.exited).toBe(0);
    }
  });
});
