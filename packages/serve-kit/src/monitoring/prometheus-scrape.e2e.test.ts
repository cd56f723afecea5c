import { createServer, type Server } from "node:http";
import { getFreePort, type ManagedProcess, startPrometheus, VllmMetricsPage } from "@finetune-studio/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryPrometheus, tempFiles } from "../test/promtool.js";
import { DEFAULT_PROMETHEUS_RULES_FILE, prometheusConfig } from "./prometheus-config.js";
import { PROMETHEUS_ALERTS, prometheusRules } from "./prometheus-rules.js";

// Debian's real Prometheus, started from the generated prometheus.yml, scrapes a node:http stand-in that
// serves the vLLM /metrics page; queries through its HTTP API must return the stand-in's samples.

const page = new VllmMetricsPage({ models: ["support"], maxLoras: 2 });
let standIn: Server;
let prometheus: ManagedProcess;
let prometheusUrl: string;
let files: { dir: string; remove(): void };

beforeAll(async () => {
  const metricsPort = await getFreePort();
  standIn = createServer((request, response) => {
    if (request.url !== "/metrics") {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" });
    response.end(page.render());
  });
  await new Promise<void>((resolve) => standIn.listen(metricsPort, "127.0.0.1", resolve));

  files = tempFiles({
    "prometheus.yml": prometheusConfig({ targets: [`127.0.0.1:${metricsPort}`], scrapeIntervalSeconds: 1 }),
    [DEFAULT_PROMETHEUS_RULES_FILE]: prometheusRules(),
  });
  ({ process: prometheus, url: prometheusUrl } = await startPrometheus(files.dir));
}, 120_000);

afterAll(async () => {
  await prometheus?.stop();
  await new Promise<void>((resolve) => (standIn ? standIn.close(() => resolve()) : resolve()));
  files?.remove();
});

/** Polls a query until `accept` likes its result: Prometheus scrapes every second, the machine is loaded. */
async function eventually<T>(query: string, accept: (result: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    last = await queryPrometheus(prometheusUrl, query);
    if (accept(last as T)) return last as T;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(
    `${query} never matched; last answer ${JSON.stringify(last)}\n${prometheus.output().slice(-2000)}`,
  );
}

type Result = Awaited<ReturnType<typeof queryPrometheus>>;
const values = (result: Result) => result.map((row) => row.value[1]);

describe("Debian's prometheus with the generated configuration", () => {
  it("scrapes the stand-in: up is 1 for the job the config names", async () => {
    const result = await eventually<Result>('up{job="vllm"}', (r) => values(r).includes("1"));
    expect(result).toHaveLength(1);
    expect(result[0]?.metric.instance).toMatch(/^127\.0\.0\.1:\d+$/);
  }, 90_000);

  it("returns the stand-in's samples, and follows them as they move", async () => {
    page.setScheduler({ running: 4, waiting: 9, kvCacheUsage: 0.625 });
    page.setLoraAdapters(["support"], [], Date.now() / 1000);
    for (let i = 0; i < 3; i++) {
      page.recordRequest({
        promptTokens: 11,
        generationTokens: 7,
        timeToFirstTokenSeconds: 0.05,
        e2eLatencySeconds: 0.9,
      });
    }
    const running = await eventually<Result>("vllm:num_requests_running", (r) => values(r).includes("4"));
    expect(running[0]?.metric).toMatchObject({ model_name: "support", engine: "0", job: "vllm" });
    await eventually<Result>("vllm:num_requests_waiting", (r) => values(r).includes("9"));
    await eventually<Result>("vllm:kv_cache_usage_perc", (r) => values(r).includes("0.625"));
    await eventually<Result>("vllm:prompt_tokens_total", (r) => values(r).includes("33"));
    await eventually<Result>('vllm:request_success_total{finished_reason="stop"}', (r) =>
      values(r).includes("3"),
    );
    const adapters = await eventually<Result>("vllm:lora_requests_info", (r) => r.length > 0);
    expect(adapters[0]?.metric).toMatchObject({ running_lora_adapters: "support", max_lora: "2" });
    // The histogram reaches Prometheus whole: its quantile lands inside the bucket the requests fell in.
    const p50 = await eventually<Result>(
      "histogram_quantile(0.5, sum by (le) (vllm:time_to_first_token_seconds_bucket))",
      (r) => r.length === 1 && Number(r[0]?.value[1]) > 0,
    );
    expect(Number(p50[0]?.value[1])).toBeGreaterThan(0.04);
    expect(Number(p50[0]?.value[1])).toBeLessThanOrEqual(0.06);

    page.setScheduler({ running: 1 });
    await eventually<Result>("vllm:num_requests_running", (r) => values(r).includes("1"));
  }, 120_000);

  it("loads the generated alerting rules through rule_files", async () => {
    const response = await fetch(`${prometheusUrl}/api/v1/rules`, { signal: AbortSignal.timeout(5_000) });
    const body = (await response.json()) as {
      data: { groups: { rules: { name: string; health: string }[] }[] };
    };
    const rules = body.data.groups.flatMap((group) => group.rules);
    expect(rules.map((rule) => rule.name)).toEqual([...PROMETHEUS_ALERTS]);
  }, 30_000);
});
