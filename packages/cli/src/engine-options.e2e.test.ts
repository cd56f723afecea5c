import { getFreePort, getFreePortFollowedBy, waitForOutput } from "@finetune-studio/testing";
import { describe, expect, it } from "vitest";
import { fakeVllmEnv, startCli } from "./test/cli-process.js";
import { stoppedAfterEach } from "./test/stopped-after-each.js";

// Every engine option of serve-kit's table works on every path. `command` and docker are
// checked in cli.test.ts; here `launch`, with one instance and with several, hands them to vLLM.

const running = stoppedAfterEach();

const ENGINE_FLAGS = ["--max-model-len", "4096", "--dtype", "bfloat16", "--gpu-memory-utilization", "0.8"];

describe("launch hands the engine options to vLLM", { timeout: 120_000 }, () => {
  it.each([
    ["one instance", []],
    ["two instances", ["--instances", "2"]],
  ])("%s", async (_name, more) => {
    // Two instances take the two ports after the front door's, and its metrics the next.
    const port = more.length === 0 ? await getFreePort() : await getFreePortFollowedBy(3);
    const fake = fakeVllmEnv({ FAKE_VLLM_PRISM: "0" });
    const proc = startCli(
      ["launch", "full", "acme/m", "--port", String(port), ...ENGINE_FLAGS, ...more],
      fake.env,
    );
    running.push(proc);
    await waitForOutput(proc, /^ready: /m, 90_000);
    expect(fake.record()?.argv.join(" ")).toContain(ENGINE_FLAGS.join(" "));
    proc.child.kill("SIGINT");
    await proc.exited;
  });
});
