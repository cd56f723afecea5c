import { createServer } from "node:net";
import { createChatClient } from "@finetune-studio/client";
import { buildServeCommand } from "@finetune-studio/serve-kit";
import { getFreePort, type ManagedProcess, waitForOutput } from "@finetune-studio/testing";
import { describe, expect, it } from "vitest";
import { adapterDir } from "./test/adapter-dir.js";
import { fakeVllmEnv, isAlive, startCli } from "./test/cli-process.js";
import { stoppedAfterEach } from "./test/stopped-after-each.js";

// `studio-serve launch` for real, against a stand-in `vllm` on PATH (src/test/fixtures/fake-vllm.mjs) that
// records its argv and serves the chat-completions contract on the port it was given (the first test with
// Prism behind it, so launch's smoke completion meets the contract as Prism reads it).

const running = stoppedAfterEach();

function launch(args: string[], env: NodeJS.ProcessEnv): ManagedProcess {
  const proc = startCli(["launch", ...args], env);
  running.push(proc);
  return proc;
}

describe("studio-serve launch", { timeout: 180_000 }, () => {
  it("starts vLLM with the builder's argv, waits, smoke-tests, and passes Ctrl-C on", async () => {
    const port = await getFreePort();
    const fake = fakeVllmEnv({ FAKE_VLLM_PRISM: "1" });
    const args = ["full", "acme/support-8b", "--served-model-name", "support", "--port", String(port)];
    const proc = launch([...args, "--", "--max-model-len", "4096"], fake.env);

    await waitForOutput(proc, /^ready: /m);
    const want = buildServeCommand({
      kind: "full",
      model: "acme/support-8b",
      servedModelName: "support",
      port,
      extraArgs: ["--max-model-len", "4096"],
    });
    expect(fake.record()?.argv).toEqual(want.argv.slice(1));
    const output = proc.output();
    expect(output).toContain(`ready: http://127.0.0.1:${port}/v1 serves "support"`);
    expect(output).toMatch(/^\[vllm\] INFO .*vLLM API server/m);
    expect(output).toContain(`curl http://127.0.0.1:${port}/v1/chat/completions`);
    expect(output).toContain(`createChatClient({ baseUrl: "http://127.0.0.1:${port}" })`);

    // The server it reports ready really answers a completion for the served name.
    const chat = createChatClient({ baseUrl: `http://127.0.0.1:${port}` });
    expect(
      await chat.text({ model: "support", messages: [{ role: "user", content: "Hi" }], max_tokens: 8 }),
    ).toEqual(expect.any(String));

    proc.child.kill("SIGINT");
    expect(await proc.exited).toBe(0);
    const record = fake.record();
    // Exactly one SIGINT reached vLLM: it runs in its own process group, so only studio-serve passes it on.
    expect(record?.signals).toEqual(["SIGINT"]);
    expect(isAlive(record?.pid ?? 0)).toBe(false);
    expect(proc.output()).toContain("vLLM stopped (exit code 0)");
  });

  it("serves LoRA adapters with the key in VLLM_API_KEY only, and exits with vLLM's code on SIGTERM", async () => {
    const port = await getFreePort();
    const key = "sk-test-launch-0123456789";
    const fake = fakeVllmEnv({ MY_VLLM_KEY: key, FAKE_VLLM_SIGNAL_EXIT: "7" });
    const support = adapterDir("support-lora");
    const sales = adapterDir("a=b,c");
    const proc = launch(
      [
        "lora",
        "meta-llama/Llama-3.1-8B-Instruct",
        "--adapter",
        `support=${support}`,
        "--adapter",
        `sales=${sales}`,
        "--max-lora-rank",
        "32",
        "--port",
        String(port),
        "--api-key-env",
        "MY_VLLM_KEY",
      ],
      fake.env,
    );
    await waitForOutput(proc, /^ready: /m);
    const record = fake.record();
    expect(record?.apiKey).toBe(key);
    expect(record?.argv.join(" ")).not.toContain(key);
    expect(record?.argv).toContain(JSON.stringify({ name: "sales", path: sales }));
    expect(proc.output()).not.toContain(key);
    expect(proc.output()).toContain('-H "Authorization: Bearer $MY_VLLM_KEY"');

    // The key guards /v1 while /health stays open, as with vLLM.
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/v1/models`)).status).toBe(401);
    expect((await fetch(`${base}/health`)).status).toBe(200);
    const models = await createChatClient({ baseUrl: base, apiKey: key }).listModels();
    expect(models.data.map((model) => model.id)).toEqual([
      "meta-llama/Llama-3.1-8B-Instruct",
      "support",
      "sales",
    ]);

    proc.child.kill("SIGTERM");
    expect(await proc.exited).toBe(7);
    expect(fake.record()?.signals).toEqual(["SIGTERM"]);
  });

  it.each([
    [
      "an adapter rank above --max-lora-rank",
      "INFO loading adapter|ValueError: LoRA rank 64 is greater than max_lora_rank 16.",
      "1",
      /hint: --max-lora-rank is too small/,
    ],
    [
      "out of GPU memory",
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
      "1",
      /hint: out of GPU memory/,
    ],
    [
      "a gated repository",
      "huggingface_hub.errors.GatedRepoError: 401 Client Error. Cannot access gated repo for url",
      "42",
      /hint: the hub refused the repository.*HF_TOKEN/,
    ],
  ])("reports an early exit from %s with the last lines and a hint", async (_name, lines, code, hint) => {
    const fake = fakeVllmEnv({
      FAKE_VLLM_MODE: "crash",
      FAKE_VLLM_CRASH_LINES: lines,
      FAKE_VLLM_CRASH_CODE: code,
    });
    const proc = launch(
      ["lora", "base/model", "--adapter", `a=${adapterDir()}`, "--port", String(await getFreePort())],
      fake.env,
    );
    expect(await proc.exited).toBe(Number(code));
    const output = proc.output();
    expect(output).toContain(`vLLM exited (exit code ${code}) before it was ready`);
    for (const line of lines.split("|")) expect(output).toContain(`  | ${line}`);
    expect(output).toMatch(hint);
    expect(output).not.toMatch(/^ready:/m);
  });

  it("stops a vLLM that never becomes ready after --timeout and exits 124", async () => {
    // The timeout leaves the stand-in ample time to start and install its signal handlers.
    const fake = fakeVllmEnv({ FAKE_VLLM_MODE: "hang" });
    const proc = launch(
      ["full", "acme/slow", "--port", String(await getFreePort()), "--timeout", "4"],
      fake.env,
    );
    expect(await proc.exited).toBe(124);
    expect(proc.output()).toContain("vLLM was not ready after 4 s");
    expect(proc.output()).toContain("| INFO Loading weights took forever...");
    const record = fake.record();
    expect(record?.signals).toEqual(["SIGTERM"]);
    expect(isAlive(record?.pid ?? 0)).toBe(false);
  });

  it("passes Ctrl-C on while vLLM is still loading, and exits with its code", async () => {
    const fake = fakeVllmEnv({ FAKE_VLLM_MODE: "hang", FAKE_VLLM_SIGNAL_EXIT: "5" });
    const proc = launch(["full", "acme/slow", "--port", String(await getFreePort())], fake.env);
    await waitForOutput(proc, /Loading weights took forever/);
    proc.child.kill("SIGINT");
    expect(await proc.exited).toBe(5);
    expect(fake.record()?.signals).toEqual(["SIGINT"]);
    expect(proc.output()).toContain("vLLM stopped (exit code 5)");
    expect(proc.output()).not.toContain("before it was ready");
  });

  it("stops vLLM and exits 3 when the smoke completion fails", async () => {
    const fake = fakeVllmEnv({ FAKE_VLLM_CHAT_STATUS: "500" });
    const proc = launch(["full", "acme/m", "--port", String(await getFreePort())], fake.env);
    expect(await proc.exited).toBe(3);
    expect(proc.output()).toContain("the one-token smoke completion failed");
    expect(fake.record()?.signals).toEqual(["SIGTERM"]);
  });

  it("exits 1 when the server refuses the key it was given", async () => {
    const fake = fakeVllmEnv({ FAKE_VLLM_REQUIRE_KEY: "another-key", MY_KEY: "my-key" });
    const proc = launch(
      ["full", "acme/m", "--port", String(await getFreePort()), "--api-key-env", "MY_KEY"],
      fake.env,
    );
    expect(await proc.exited).toBe(1);
    expect(proc.output()).toContain("did not answer as vLLM should");
    expect(proc.output()).not.toContain("my-key");
  });
});

describe("studio-serve launch refuses before starting anything", { timeout: 60_000 }, () => {
  it("says how to install vllm when it is not on PATH, and exits 127", async () => {
    const fake = fakeVllmEnv();
    const proc = launch(["full", "acme/m"], { ...fake.env, PATH: "/nonexistent" });
    expect(await proc.exited).toBe(127);
    expect(proc.output()).toContain("vllm is not on PATH");
    expect(proc.output()).toContain("pip install vllm");
  });

  it("exits 1 when the port is taken", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    try {
      const fake = fakeVllmEnv();
      const proc = launch(["full", "acme/m", "--port", String(port)], fake.env);
      expect(await proc.exited).toBe(1);
      expect(proc.output()).toContain(`127.0.0.1:${port} is already in use`);
      expect(fake.record()).toBeUndefined();
    } finally {
      server.close();
    }
  });

  it.each<[string, string[], NodeJS.ProcessEnv, RegExp]>([
    ["no adapter", ["lora", "base/m"], {}, /--adapter: must list at least one adapter/],
    [
      "a bad rank",
      ["lora", "base/m", "--adapter", "a=/a", "--max-lora-rank", "48"],
      {},
      /--max-lora-rank: .*use 64/,
    ],
    [
      "an unset key variable",
      ["full", "m", "--api-key-env", "NOT_SET_ANYWHERE"],
      {},
      /NOT_SET_ANYWHERE is not set/,
    ],
    [
      "a key instead of a name",
      ["full", "m", "--api-key-env", "sk-abc def"],
      {},
      /must name an environment variable/,
    ],
    ["a bad timeout", ["full", "m", "--timeout", "soon"], {}, /--timeout: must be a whole number/],
    ["an option injection", ["full", "--", "--help"], {}, /missing <model>/],
  ])("refuses %s with exit code 2 and starts nothing", async (_name, args, extra, message) => {
    const fake = fakeVllmEnv(extra);
    const proc = launch(args, fake.env);
    expect(await proc.exited).toBe(2);
    expect(proc.output()).toMatch(message);
    expect(proc.output().trim().split("\n")).toHaveLength(1);
    expect(fake.record()).toBeUndefined();
  });
});
