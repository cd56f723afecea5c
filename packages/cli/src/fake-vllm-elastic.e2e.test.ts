import { readInstanceSignals } from "@finetune-studio/serve-kit/internal";
import { getFreePort, startProcess, waitForHttp, waitForOutput } from "@finetune-studio/testing";
import { describe, expect, it } from "vitest";
import { fakeVllmEnv } from "./test/cli-process.js";
import { stoppedAfterEach } from "./test/stopped-after-each.js";

// The stand-in vLLM's capacity model and sleep mode (test/fixtures/fake-vllm-capacity.mjs and
// fake-vllm-sleep.mjs), which the autoscaler's tests and the bench stand on: started directly with node,
// as launch starts it, and held to what it says it does. Timings are checked from below only (a timer never
// fires early), so a busy machine cannot fail them.

const SCRIPT = new URL("./test/fixtures/fake-vllm.mjs", import.meta.url).pathname;
const running = stoppedAfterEach();

async function standIn(extra: NodeJS.ProcessEnv, more: readonly string[] = []) {
  const port = await getFreePort();
  const fake = fakeVllmEnv({ FAKE_VLLM_PRISM: "0", ...extra });
  const args = [SCRIPT, "serve", "acme/m", "--port", String(port), ...more];
  const proc = startProcess(process.execPath, args, { env: fake.env });
  running.push(proc);
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/health`, { process: proc, isReady: (status) => status === 200 });
  return { base, proc, fake, port };
}

const chat = (base: string, body: object = {}, signal?: AbortSignal) =>
  fetch(`${base}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "acme/m", messages: [{ role: "user", content: "hi" }], ...body }),
    ...(signal === undefined ? {} : { signal }),
  });

async function metricsOf(base: string) {
  const text = await (await fetch(`${base}/metrics`)).text();
  const reading = readInstanceSignals(text, "acme/m");
  if (reading.signals === null) throw new Error(`no signals: ${reading.reason}`);
  return { text, ...reading.signals };
}

/** Polls the stand-in's /metrics until `ready` holds (or fails with the last figures after 20 s). */
async function metricsUntil(base: string, ready: (m: Awaited<ReturnType<typeof metricsOf>>) => boolean) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const metrics = await metricsOf(base);
    if (ready(metrics)) return metrics;
    if (Date.now() > deadline) throw new Error(`metrics never got there: ${JSON.stringify(metrics)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("the stand-in's capacity model", () => {
  it("runs FAKE_VLLM_MAX_RUNNING at once, queues the rest first come first served, and its /metrics says so", async () => {
    const { base } = await standIn({ FAKE_VLLM_MAX_RUNNING: "2", FAKE_VLLM_TOKEN_MS: "25" });
    const answerMs = 40 * 25;
    const started = performance.now();
    const answers = Array.from({ length: 5 }, async () => {
      const response = await chat(base, { max_tokens: 40 });
      const body = (await response.json()) as { usage: { completion_tokens: number }; choices: unknown[] };
      return {
        status: response.status,
        tokens: body.usage.completion_tokens,
        ms: performance.now() - started,
      };
    });
    const busy = await metricsUntil(base, (m) => m.running + m.waiting === 5);
    expect(busy).toMatchObject({ running: 2, waiting: 3 });
    const done = (await Promise.all(answers)).sort((a, b) => a.ms - b.ms);
    expect(done.map(({ status, tokens }) => [status, tokens])).toEqual(Array(5).fill([200, 40]));
    // Two at a time: the third and fourth waited one whole answer, the fifth two.
    expect(done.map((one) => Math.floor(one.ms / answerMs))).toEqual([
      expect.any(Number),
      expect.any(Number),
      expect.toSatisfy((n: number) => n >= 2),
      expect.toSatisfy((n: number) => n >= 2),
      expect.toSatisfy((n: number) => n >= 3),
    ]);
    const after = await metricsOf(base);
    expect(after).toMatchObject({ running: 0, waiting: 0, kvUsage: 0 });
    expect(after.text).toContain(
      'vllm:request_success_total{engine="0",finished_reason="length",model_name="acme/m"} 5.0',
    );
    expect(after.text).toContain('vllm:generation_tokens_total{engine="0",model_name="acme/m"} 200.0');
    expect(after.text).toContain(
      'vllm:time_to_first_token_seconds_count{engine="0",model_name="acme/m"} 5.0',
    );
  });

  it("takes its batch from --max-num-seqs, as vLLM does, when FAKE_VLLM_MAX_RUNNING is not set", async () => {
    const { base } = await standIn({ FAKE_VLLM_TOKEN_MS: "25" }, ["--max-num-seqs", "1"]);
    const answers = [chat(base, { max_tokens: 40 }), chat(base, { max_tokens: 40 })];
    expect(await metricsUntil(base, (m) => m.running + m.waiting === 2)).toMatchObject({
      running: 1,
      waiting: 1,
    });
    await Promise.all(answers.map(async (answer) => (await answer).text()));
  });

  it("reports the KV blocks its running requests fill, and runs no more than the blocks hold", async () => {
    // 20 prompt tokens and 40 generated need 4 blocks of 16: 7 blocks hold one such request, not two.
    const { base } = await standIn({
      FAKE_VLLM_MAX_RUNNING: "2",
      FAKE_VLLM_TOKEN_MS: "25",
      FAKE_VLLM_KV_BLOCKS: "7",
    });
    const answers = [chat(base, { max_tokens: 40 }), chat(base, { max_tokens: 40 })];
    const busy = await metricsUntil(base, (m) => m.running + m.waiting === 2);
    expect(busy).toMatchObject({ running: 1, waiting: 1 });
    // Its prompt fills 2 blocks of 7 at once; the answer's tokens fill the rest as they come, 4 at most.
    expect(busy.kvUsage).toBeGreaterThanOrEqual(2 / 7);
    expect(busy.kvUsage).toBeLessThanOrEqual(4 / 7);
    await Promise.all(answers.map(async (answer) => (await answer).text()));
    expect((await metricsOf(base)).kvUsage).toBe(0);
  });

  it("streams one chunk a token after a first token one step in, and ends with the usage asked for", async () => {
    const { base } = await standIn({ FAKE_VLLM_TOKEN_MS: "30" });
    const sent = performance.now();
    const response = await chat(base, {
      max_tokens: 5,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const text = await response.text();
    expect(performance.now() - sent).toBeGreaterThanOrEqual(5 * 30);
    const events = text.split("\n\n").filter((event) => event !== "");
    expect(events).toHaveLength(5 + 1 + 1 + 1);
    expect(events.filter((event) => event.includes('"content":" hi"'))).toHaveLength(5);
    expect(events.at(-3)).toContain('"finish_reason":"length"');
    expect(events.at(-2)).toContain('"usage":{"prompt_tokens":20,"completion_tokens":5,"total_tokens":25}');
    expect(events.at(-1)).toBe("data: [DONE]");
  });

  it("aborts the request of a client that goes away, and frees its place", async () => {
    const { base } = await standIn({ FAKE_VLLM_MAX_RUNNING: "1", FAKE_VLLM_TOKEN_MS: "50" });
    const gone = new AbortController();
    const first = chat(base, { max_tokens: 100 }, gone.signal).catch(() => "aborted");
    await metricsUntil(base, (m) => m.running === 1);
    gone.abort();
    expect(await first).toBe("aborted");
    await metricsUntil(base, (m) => m.running === 0);
    expect((await chat(base, { max_tokens: 2 })).status).toBe(200);
    const { text } = await metricsOf(base);
    expect(text).toContain('finished_reason="abort",model_name="acme/m"} 1.0');
  });

  it("refuses to start with Prism, which would answer in its place", async () => {
    const port = await getFreePort();
    const fake = fakeVllmEnv({ FAKE_VLLM_PRISM: "1", FAKE_VLLM_MAX_RUNNING: "2" });
    const proc = startProcess(process.execPath, [SCRIPT, "serve", "acme/m", "--port", String(port)], {
      env: fake.env,
    });
    running.push(proc);
    expect(await proc.exited).toBe(64);
    expect(proc.output()).toContain("leave FAKE_VLLM_PRISM unset");
  });
});

describe("the stand-in's sleep mode", () => {
  const sleepy = { VLLM_SERVER_DEV_MODE: "1", FAKE_VLLM_SLEEP_MS: "50", FAKE_VLLM_WAKE_MS: "300" };
  const post = (url: string) => fetch(url, { method: "POST" });
  const isSleeping = async (base: string) => (await (await fetch(`${base}/is_sleeping`)).json()) as object;

  it.each([
    ["without VLLM_SERVER_DEV_MODE", {}],
    ["with VLLM_SERVER_DEV_MODE=0", { VLLM_SERVER_DEV_MODE: "0" }],
  ])("has no dev-mode routes %s: 404, as vLLM", async (_name, env) => {
    const { base } = await standIn(env, ["--enable-sleep-mode"]);
    for (const [method, path] of [
      ["POST", "/sleep?level=1"],
      ["POST", "/wake_up"],
      ["GET", "/is_sleeping"],
      ["POST", "/collective_rpc"],
    ] as const) {
      const response = await fetch(`${base}${path}`, { method });
      expect([path, response.status, await response.text()]).toEqual([path, 404, '{"detail":"Not Found"}']);
    }
  });

  it("sleeps and wakes: 200 with no body, is_sleeping says so, and it serves again once awake", async () => {
    const { base, fake, port } = await standIn(sleepy, ["--enable-sleep-mode"]);
    expect(await isSleeping(base)).toEqual({ is_sleeping: false });
    const slept = await post(`${base}/sleep?level=1`);
    expect([slept.status, await slept.text()]).toEqual([200, ""]);
    expect(await isSleeping(base)).toEqual({ is_sleeping: true });
    expect((await fetch(`${base}/health`)).status).toBe(200);
    expect(await metricsOf(base)).toMatchObject({ running: 0, waiting: 0 });
    expect((await fetch(`${base}/sleep`)).status).toBe(405);
    const waking = performance.now();
    const woke = await post(`${base}/wake_up`);
    expect([woke.status, await woke.text()]).toEqual([200, ""]);
    expect(performance.now() - waking).toBeGreaterThanOrEqual(300);
    expect(await isSleeping(base)).toEqual({ is_sleeping: false });
    expect((await chat(base, { max_tokens: 2 })).status).toBe(200);
    expect(fake.events().map(({ event, port: at }) => [event, at])).toEqual([
      ["asleep", port],
      ["awake", port],
    ]);
    expect(fake.record()?.chatWhileAsleep).toBe(0);
  });

  it("refuses to sleep without --enable-sleep-mode: 500, and stays awake", async () => {
    const { base, proc } = await standIn(sleepy);
    const response = await post(`${base}/sleep?level=1`);
    expect([response.status, await response.text()]).toEqual([500, "Internal Server Error"]);
    // Its stderr line travels apart from the answer: waited for, not raced.
    await waitForOutput(proc, "Sleep mode is not enabled in the model config", 10_000);
    expect(await isSleeping(base)).toEqual({ is_sleeping: false });
    expect((await chat(base, { max_tokens: 2 })).status).toBe(200);
  });

  it("crashes on a chat completion while asleep, as vLLM's engine does, and counts it", async () => {
    const { base, proc, fake } = await standIn(sleepy, ["--enable-sleep-mode"]);
    await post(`${base}/sleep?level=1`);
    const response = await chat(base, { max_tokens: 2 });
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({
      type: "InternalServerError",
      message: /EngineCore encountered an issue/,
    });
    expect(await proc.exited).toBe(1);
    expect(fake.record()?.chatWhileAsleep).toBe(1);
    expect(fake.events().map(({ event }) => event)).toEqual(["asleep", "chat-while-asleep"]);
  });

  it("aborts the requests in flight with mode=abort (vLLM's default), and waits for them with mode=wait", async () => {
    const { base, fake } = await standIn({ ...sleepy, FAKE_VLLM_TOKEN_MS: "50" }, ["--enable-sleep-mode"]);
    const cut = chat(base, { max_tokens: 100 }).then(
      async (response) => (await response.text()).length,
      () => "cut",
    );
    await metricsUntil(base, (m) => m.running === 1);
    expect((await post(`${base}/sleep?level=1`)).status).toBe(200);
    expect(await cut).toBe("cut");
    await post(`${base}/wake_up`);
    const finishing = chat(base, { max_tokens: 10 });
    await metricsUntil(base, (m) => m.running === 1);
    expect((await post(`${base}/sleep?level=1&mode=wait`)).status).toBe(200);
    expect((await finishing).status).toBe(200);
    expect(fake.events().map(({ event, aborted }) => [event, aborted])).toEqual([
      ["asleep", 1],
      ["awake", undefined],
      ["asleep", 0],
    ]);
  });

  it("fails to wake with FAKE_VLLM_WAKE_FAILS=1, as when its GPU memory was taken meanwhile, and stays asleep", async () => {
    const { base, proc, fake } = await standIn({ ...sleepy, FAKE_VLLM_WAKE_FAILS: "1" }, [
      "--enable-sleep-mode",
    ]);
    await post(`${base}/sleep?level=1`);
    const response = await post(`${base}/wake_up`);
    expect([response.status, await response.text()]).toEqual([500, "Internal Server Error"]);
    await waitForOutput(proc, "CUDA Error: out of memory", 10_000);
    expect(await isSleeping(base)).toEqual({ is_sleeping: true });
    expect(fake.events().map(({ event }) => event)).toEqual(["asleep", "wake-failed"]);
  });
});
