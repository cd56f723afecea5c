import { createServer, type Server } from "node:http";
import { fileURLToPath } from "node:url";
import { createChatClient } from "@finetune-studio/client";
import { getFreePort, type ManagedProcess, startProcess, waitForOutput } from "@finetune-studio/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, startCli } from "./test/cli-process.js";

// `studio-serve status` for real: the built CLI against two stand-in vLLMs (src/test/fixtures/fake-vllm.mjs,
// whose /metrics numbers move as they answer chat completions), a port nothing listens on, a server that
// answers garbage, and one that never answers.

const FAKE_VLLM = fileURLToPath(new URL("./test/fixtures/fake-vllm.mjs", import.meta.url));

interface StandIn {
  url: string;
  proc: ManagedProcess;
}

const standIns: StandIn[] = [];
const servers: Server[] = [];
const clis: ManagedProcess[] = [];
let full: StandIn;
let lora: StandIn;
let deadUrl: string;
let garbageUrl: string;
let silentUrl: string;

async function startStandIn(args: string[], env: NodeJS.ProcessEnv): Promise<StandIn> {
  const port = await getFreePort();
  const proc = startProcess(
    process.execPath,
    [FAKE_VLLM, "serve", ...args, "--host", "127.0.0.1", "--port", String(port)],
    {
      env: cleanEnv({ FAKE_VLLM_LOG_SCRAPES: "1", ...env }),
    },
  );
  const standIn = { url: `http://127.0.0.1:${port}`, proc };
  standIns.push(standIn);
  await waitForOutput(proc, "Uvicorn running", 90_000);
  return standIn;
}

async function startServer(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  const port = await getFreePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return `http://127.0.0.1:${port}`;
}

beforeAll(async () => {
  [full, lora] = await Promise.all([
    startStandIn(["acme/support-8b", "--served-model-name", "support"], {
      FAKE_VLLM_WAITING: "3",
      FAKE_VLLM_KV_CACHE: "0.25",
      FAKE_VLLM_PREEMPTIONS: "2",
      FAKE_VLLM_PROMPT_TOKENS: "30",
      FAKE_VLLM_PREFIX_HITS: "24",
      FAKE_VLLM_TTFT: "0.07",
      FAKE_VLLM_E2E: "1.2",
    }),
    startStandIn(
      [
        "meta/base-8b",
        "--enable-lora",
        "--lora-modules",
        "sales=/a/sales",
        "billing=/a/billing",
        "--max-loras",
        "2",
      ],
      { FAKE_VLLM_KV_CACHE: "0.5", FAKE_VLLM_TTFT: "3", FAKE_VLLM_E2E: "9" },
    ),
  ]);
  deadUrl = `http://127.0.0.1:${await getFreePort()}`;
  garbageUrl = await startServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html" }).end("<html><body>It works!</body></html>");
  });
  silentUrl = await startServer(() => {
    // Accepts the request and never answers.
  });
}, 120_000);

afterEach(async () => {
  await Promise.all(clis.splice(0).map((proc) => proc.stop()));
});

afterAll(async () => {
  await Promise.all(standIns.map((standIn) => standIn.proc.stop()));
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

function status(args: string[]): ManagedProcess {
  const proc = startCli(["status", ...args], cleanEnv());
  clis.push(proc);
  return proc;
}

function scrapesOf(standIn: StandIn): number {
  return [...standIn.proc.output().matchAll(/metrics scraped (\d+)/g)].length;
}

async function chat(url: string, model: string, times: number): Promise<void> {
  const client = createChatClient({ baseUrl: url, timeoutMs: 30_000 });
  for (let i = 0; i < times; i++) {
    await client.complete({ model, messages: [{ role: "user", content: "hi" }], max_tokens: 8 });
  }
}

interface JsonInstance {
  url: string;
  state: string;
  detail: string | null;
  models: { id: string; parent: string | null }[] | null;
  metrics: Record<string, never> & {
    readable: boolean;
    requestsRunning: number;
    requestsWaiting: number;
    kvCacheUsage: number;
    promptTokensPerSecond: number;
    generationTokensPerSecond: number;
    intervalSeconds: number;
    preemptions: number;
    timeToFirstToken: { p50: number; p95: number; requests: number; window: string };
    e2eLatency: { p50: number; p95: number; requests: number; window: string };
    finishedRequests: Record<string, number>;
    runningAdapters: string[];
    maxLoras: number | null;
    prefixCacheHitRate: { share: number; window: string; tokens: number | null } | null;
  };
}

describe("studio-serve status", { timeout: 120_000 }, () => {
  it("--json reports the values the stand-ins were driven to, between its two reads", async () => {
    const before = { full: scrapesOf(full), lora: scrapesOf(lora) };
    const proc = status([full.url, lora.url, deadUrl, "--json", "--interval", "5"]);
    // Drive the requests after the first look at both pages (two reads: one, and one more to tell whether one
    // process answers them), so they fall between the two looks.
    await waitForOutput(full.proc, new RegExp(`metrics scraped ${before.full + 2}\\b`), 30_000);
    await waitForOutput(lora.proc, new RegExp(`metrics scraped ${before.lora + 2}\\b`), 30_000);
    await Promise.all([chat(full.url, "support", 4), chat(lora.url, "sales", 2)]);
    expect(await proc.exited).toBe(1); // one instance is down
    const report = JSON.parse(proc.output()) as { instances: JsonInstance[] };
    const [first, second, dead] = report.instances;

    expect(first).toMatchObject({
      url: full.url,
      state: "up",
      detail: null,
      models: [{ id: "support", parent: null }],
    });
    const m = first?.metrics;
    expect(m).toMatchObject({
      readable: true,
      requestsRunning: 0,
      requestsWaiting: 3,
      kvCacheUsage: 0.25,
      preemptions: 2,
    });
    // 4 requests × 30 prompt tokens and × 8 generated ones, over the measured time between the reads.
    expect((m?.promptTokensPerSecond ?? 0) * (m?.intervalSeconds ?? 0)).toBeCloseTo(120, 6);
    expect((m?.generationTokensPerSecond ?? 0) * (m?.intervalSeconds ?? 0)).toBeCloseTo(32, 6);
    expect(m?.intervalSeconds).toBeGreaterThanOrEqual(5);
    // Every TTFT was 0.07 s and every latency 1.2 s: the percentiles stay inside those buckets.
    expect(m?.timeToFirstToken).toMatchObject({ requests: 4, window: "between-scrapes" });
    for (const q of [m?.timeToFirstToken.p50, m?.timeToFirstToken.p95]) {
      expect(q).toBeGreaterThan(0.06);
      expect(q).toBeLessThanOrEqual(0.08);
    }
    for (const q of [m?.e2eLatency.p50, m?.e2eLatency.p95]) {
      expect(q).toBeGreaterThan(1.0);
      expect(q).toBeLessThanOrEqual(1.5);
    }
    expect(m?.finishedRequests.stop).toBeGreaterThanOrEqual(4);
    // 24 of each prompt's 30 tokens found in the prefix cache, counted between the reads.
    expect(m?.prefixCacheHitRate).toEqual({ share: 0.8, window: "between-scrapes", tokens: 120 });

    expect(second).toMatchObject({
      state: "up",
      models: [
        { id: "meta/base-8b", parent: null },
        { id: "sales", parent: "meta/base-8b" },
        { id: "billing", parent: "meta/base-8b" },
      ],
    });
    expect(second?.metrics).toMatchObject({
      kvCacheUsage: 0.5,
      runningAdapters: ["sales"],
      maxLoras: 2,
      prefixCacheHitRate: null, // its stand-in counts no prefix-cache lookups
    });
    expect(second?.metrics.timeToFirstToken.p95).toBeGreaterThan(2.5);
    expect(second?.metrics.timeToFirstToken.p95).toBeLessThanOrEqual(5);

    expect(dead).toMatchObject({ url: deadUrl, state: "refused", models: null, metrics: null });
    expect(dead?.detail).toMatch(/refusing connections/);
  });

  it("prints a table a person reads at a glance, and never stops at a bad instance", async () => {
    await Promise.all([chat(full.url, "support", 1), chat(lora.url, "sales", 1)]);
    const proc = status([
      full.url,
      lora.url,
      deadUrl,
      garbageUrl,
      silentUrl,
      "--interval",
      "1",
      "--timeout",
      "2",
    ]);
    expect(await proc.exited).toBe(1);
    const table = proc.output();
    const lines = table.split("\n");
    expect(lines[0]).toMatch(
      /^INSTANCE\s+STATE\s+RUN\s+WAIT\s+KV CACHE\s+PREFIX HIT\s+TOK\/S IN\s+TOK\/S OUT\s+TTFT p50\/p95\s+E2E p50\/p95\s+PREEMPT$/,
    );
    expect(table).toMatch(new RegExp(`^${full.url}\\s+up\\s+0\\s+3\\s+25\\.0%\\s+80\\.0%\\s`, "m"));
    expect(table).toMatch(new RegExp(`^${lora.url}\\s+up\\s+0\\s+0\\s+50\\.0%\\s+-\\s`, "m"));
    expect(table).toContain("  serves support\n");
    expect(table).toMatch(
      /serves meta\/base-8b; adapters sales \(on meta\/base-8b\), billing \(on meta\/base-8b\); running adapters sales/,
    );
    expect(table).toMatch(
      new RegExp(
        `^${deadUrl}\\s+refused\\s+refusing connections: vLLM is stopped, or still loading its weights$`,
        "m",
      ),
    );
    expect(table).toMatch(
      new RegExp(`^${garbageUrl}\\s+garbage\\s+/v1/models did not answer a model list$`, "m"),
    );
    expect(table).toMatch(new RegExp(`^${silentUrl}\\s+timeout\\s+no answer within 2 s$`, "m"));
    process.stdout.write(`\n${table}`);
  });

  it("--watch --json writes one line per refresh, and --count stops it", async () => {
    const proc = status([full.url, "--watch", "--json", "--count", "2", "--interval", "1"]);
    expect(await proc.exited).toBe(0);
    const lines = proc.output().trim().split("\n");
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(JSON.parse(line).instances[0].state).toBe("up");
  });

  it("takes a server's /v1 base URL (what launch prints, what OpenAI clients use) as the same server", async () => {
    const proc = status([`${full.url}/v1`, "--json", "--interval", "1"]);
    expect(await proc.exited).toBe(0);
    expect(JSON.parse(proc.output()).instances[0]).toMatchObject({ url: full.url, state: "up" });
  });

  it("--watch redraws in place until Ctrl-C, which stops it cleanly", async () => {
    const proc = status([full.url, "--watch", "--interval", "1"]);
    await waitForOutput(proc, /Ctrl-C stops/, 30_000);
    proc.child.kill("SIGINT");
    expect(await proc.exited).toBe(0);
    expect(proc.output()).toContain("\u001b[H\u001b[2J");
    expect(proc.output()).not.toContain("unexpected error");
  });

  it.each([
    [["http://127.0.0.1:8000/v1/models"], /URL #1: must be the server's root URL, or its \/v1 base URL/],
    [["ftp://127.0.0.1"], /URL #1: must be http:\/\/ or https:\/\//],
    [["http://user:secret@127.0.0.1:8000"], /URL #1: must not hold a user name or password/],
    [[], /name at least one server URL/],
    [
      ["127.0.0.1:8000", "--interval", "0"],
      /--interval: must be a whole number of seconds from 1 to 3600 \(given "0"\) \(see studio-serve status --help\)/,
    ],
    [["127.0.0.1:8000", "--count", "2"], /--count: goes with --watch/],
    [["127.0.0.1:8000", "--api-key-env", "sk-123"], /--api-key-env: must name an environment variable/],
  ])("refuses %j before any request, with exit code 2", async (args, message) => {
    const proc = status(args);
    expect(await proc.exited).toBe(2);
    expect(proc.output()).toMatch(message);
    expect(proc.output()).not.toContain("secret");
  });
});
