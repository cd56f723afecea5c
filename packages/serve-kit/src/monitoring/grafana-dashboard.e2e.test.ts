import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import {
  getFreePort,
  type ManagedProcess,
  requireSystemTool,
  startProcess,
  startPrometheus,
  VllmMetricsPage,
  waitForHttp,
} from "@finetune-studio/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { haproxyConfig, haproxyServerName } from "../front-door/haproxy-config.js";
import { queryPrometheus, tempFiles } from "../test/promtool.js";
import { grafanaDashboard } from "./grafana-dashboard.js";
import { DEFAULT_PROMETHEUS_RULES_FILE, prometheusConfig } from "./prometheus-config.js";
import { prometheusRules } from "./prometheus-rules.js";
import { sloSeries } from "./slo-rules.js";

// Debian's real Prometheus scrapes two stand-in vLLM servers, one writing V1's metric names and one the
// older names (vLLM before 0.9), with counters that advance every 200 ms, and a real HAProxy in front of
// them with its Prometheus exporter. Every dashboard query, with Grafana's variables filled in, must return
// series for each engine, and the SLO rules must record the shares the stand-ins' histograms hold.

const SLO = "ttft=300ms,tpot=50ms,e2el=2s";
const RATE_INTERVAL = "15s";

// Each round, the V1 server finishes 4 requests: TTFT 0.05, 0.05, 0.28 and 0.4 s (the 0.28 s one is within
// 300 ms but above the 0.25 s bucket, so the rules count it as missing: 2 of 4), TPOT 0.02, 0.04, 0.06 and
// 0.1 s (2 of 4 within 50 ms), end to end 1.2 s thrice and 3 s once (3 of 4 within 2 s). The old one
// finishes 4 well within every target.
const V1_ROUND = [
  { ttft: 0.05, tpot: 0.02, e2e: 1.2 },
  { ttft: 0.05, tpot: 0.04, e2e: 1.2 },
  { ttft: 0.28, tpot: 0.06, e2e: 1.2 },
  { ttft: 0.4, tpot: 0.1, e2e: 3 },
];
const V0_ROUND = Array.from({ length: 4 }, () => ({ ttft: 0.2, tpot: 0.03, e2e: 1.2 }));
const EXPECTED_SHARES = {
  v1: { ttft: 0.5, tpot: 0.5, e2el: 0.75 },
  v0: { ttft: 1, tpot: 1, e2el: 1 },
};

const pages = {
  v1: new VllmMetricsPage({ models: ["support"] }),
  v0: new VllmMetricsPage({ models: ["support"], deprecatedNames: true }),
};
const addresses = { v1: "", v0: "", v0Gauge: "" };
/** A V0 engine's page as far as the prefix cache goes: no counters, the hit rate since it started. */
const V0_GAUGE_PAGE = [
  "# TYPE vllm:gpu_prefix_cache_hit_rate gauge",
  'vllm:gpu_prefix_cache_hit_rate{model_name="support"} 0.25',
  "",
].join("\n");
const servers: Server[] = [];
let haproxy: ManagedProcess;
let prometheus: ManagedProcess;
let prometheusUrl: string;
let frontUrl: string;
let ticker: NodeJS.Timeout;
let files: { dir: string; remove(): void };

function round(): void {
  for (const [name, requests] of [
    ["v1", V1_ROUND],
    ["v0", V0_ROUND],
  ] as const) {
    for (const r of requests) {
      pages[name].recordRequest({
        promptTokens: 50,
        generationTokens: 20,
        timeToFirstTokenSeconds: r.ttft,
        timePerOutputTokenSeconds: r.tpot,
        e2eLatencySeconds: r.e2e,
        prefixCacheQueries: 100,
        prefixCacheHits: 40,
      });
    }
    pages[name].preempt();
    pages[name].setScheduler({ running: 3, waiting: 1, kvCacheUsage: 0.5 });
  }
  // Traffic through the front door, so its response counters move too: all of it with a session header
  // (routed by affinity), and a control endpoint the front door refuses itself.
  for (const [path, method] of [
    ["/v1/models", "GET"],
    ["/sleep", "POST"],
  ]) {
    fetch(`${frontUrl}${path}`, {
      method,
      headers: { "x-session-id": "a-session-of-the-dashboard-test" },
      signal: AbortSignal.timeout(2_000),
    })
      .then((response) => response.arrayBuffer())
      .catch(() => undefined);
  }
}

async function standIn(page: VllmMetricsPage | string): Promise<string> {
  const server = createServer((request, response) => {
    if (request.url === "/metrics") {
      response.writeHead(200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" });
      response.end(typeof page === "string" ? page : page.render());
      return;
    }
    response.writeHead(200, { "content-type": "application/json" }).end('{"object":"list","data":[]}');
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  addresses.v1 = await standIn(pages.v1);
  addresses.v0 = await standIn(pages.v0);
  addresses.v0Gauge = await standIn(V0_GAUGE_PAGE);
  files = tempFiles({});

  const frontPort = await getFreePort();
  const exporterPort = await getFreePort();
  frontUrl = `http://127.0.0.1:${frontPort}`;
  const haproxyFile = join(files.dir, "haproxy.cfg");
  // The front door with HAProxy's own exporter on a loopback port, as launch runs it.
  writeFileSync(
    haproxyFile,
    haproxyConfig({
      servers: [addresses.v1, addresses.v0],
      listen: frontPort,
      metricsPort: exporterPort,
      routing: "session",
    }),
  );
  haproxy = startProcess(requireSystemTool("haproxy"), ["-db", "-f", haproxyFile]);
  await waitForHttp(`http://127.0.0.1:${exporterPort}/metrics`, { process: haproxy, timeoutMs: 30_000 });

  const config = parse(
    prometheusConfig({
      targets: [addresses.v1, addresses.v0, addresses.v0Gauge],
      scrapeIntervalSeconds: 1,
      evaluationIntervalSeconds: 1,
    }),
  );
  config.scrape_configs.push({
    job_name: "front-door",
    static_configs: [{ targets: [`127.0.0.1:${exporterPort}`] }],
  });
  writeFileSync(join(files.dir, "prometheus.yml"), stringify(config));
  writeFileSync(join(files.dir, DEFAULT_PROMETHEUS_RULES_FILE), prometheusRules({ slo: SLO }));
  ({ process: prometheus, url: prometheusUrl } = await startPrometheus(files.dir));
  round();
  ticker = setInterval(round, 200);
}, 150_000);

afterAll(async () => {
  clearInterval(ticker);
  await prometheus?.stop();
  await haproxy?.stop();
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  files?.remove();
});

type Result = Awaited<ReturnType<typeof queryPrometheus>>;

/** Polls a query until `accept` likes its result: Prometheus scrapes every second, the machine is loaded. */
async function eventually(query: string, accept: (result: Result) => boolean, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  let last: Result = [];
  while (Date.now() < deadline) {
    last = await queryPrometheus(prometheusUrl, query);
    if (accept(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${query} never matched; last answer ${JSON.stringify(last)}`);
}

const numbers = (result: Result) => result.map((row) => Number(row.value[1]));
const allFinite = (result: Result) => result.length > 0 && numbers(result).every(Number.isFinite);

interface Target {
  expr: string;
}
interface Panel {
  type: string;
  title: string;
  targets?: Target[];
}
const dashboard = grafanaDashboard({ slo: SLO });
const queries = (dashboard.panels as unknown as Panel[])
  .filter((panel) => panel.type !== "row")
  .flatMap((panel) => (panel.targets ?? []).map((target) => ({ panel: panel.title, expr: target.expr })));
/** The fleet's line of V0 engines' prefix-cache gauges: only a V0 engine writes it. */
const isV0Only = (expr: string) => expr.startsWith("avg (vllm:gpu_prefix_cache_hit_rate");
const vllmQueries = queries.filter((q) => q.expr.includes("$instance") && !isV0Only(q.expr));
const frontDoorQueries = queries.filter((q) => q.expr.includes("haproxy_"));

/** The query as Grafana sends it with the instance variable set to a regex: one instance, or `.+` for All. */
function substitute(expr: string, instances: string): string {
  return expr.replaceAll("$__rate_interval", RATE_INTERVAL).replaceAll("$instance", instances);
}
const only = (engine: "v1" | "v0") => addresses[engine].replaceAll(".", "[.]");

describe("the dashboard's queries on Debian's Prometheus", { timeout: 240_000 }, () => {
  it("covers every panel with queries: vLLM's per instance, the front door's, the SLO's", () => {
    expect(vllmQueries.length).toBeGreaterThan(30);
    expect(frontDoorQueries.length).toBe(6);
    expect(vllmQueries.length + frontDoorQueries.length).toBeLessThan(queries.length);
  });

  it("returns finite series for the V1 and for the V0 instance from every vLLM query", async () => {
    for (const engine of ["v1", "v0"] as const) {
      for (const query of vllmQueries) {
        const expr = substitute(query.expr, only(engine));
        const result = await eventually(expr, allFinite);
        const instances = result.map((row) => row.metric.instance).filter((x) => x !== undefined);
        expect(
          instances.every((instance) => instance === addresses[engine]),
          `${query.panel}: ${expr}`,
        ).toBe(true);
      }
    }
  });

  it("gives plausible seconds: each instance's median falls in the bucket of its median request", async () => {
    const median = (panel: string, engine: "v1" | "v0") => {
      const query = vllmQueries.find(
        (q) => q.panel === panel && q.expr.startsWith("histogram_quantile(0.5,"),
      );
      return eventually(substitute(query?.expr ?? "", only(engine)), allFinite).then((r) => numbers(r)[0]);
    };
    const within = (value: number | undefined, low: number, high: number) => {
      expect(value).toBeGreaterThan(low);
      expect(value).toBeLessThanOrEqual(high);
    };
    within(await median("Time to first token", "v1"), 0.04, 0.06);
    within(await median("Time to first token", "v0"), 0.1, 0.25);
    within(await median("Time per output token", "v1"), 0.025, 0.05);
    within(await median("Time per output token", "v0"), 0.025, 0.05);
    within(await median("End-to-end latency", "v1"), 1, 1.5);
    within(await median("End-to-end latency", "v0"), 1, 1.5);
    // The fleet's prefix-cache hit rate is the stand-ins' 40 of 100 tokens, on both engines' names.
    const hits = vllmQueries.find(
      (q) => q.panel === "Prefix-cache hit rate" && !q.expr.includes("by (instance)"),
    );
    const rate = await eventually(substitute(hits?.expr ?? "", ".+"), allFinite);
    expect(numbers(rate)[0]).toBeCloseTo(0.4, 9);
  });

  it("shows a V0 engine's prefix-cache hit rate, from its gauge, per instance and for the fleet", async () => {
    const panel = queries.filter((q) => q.panel === "Prefix-cache hit rate");
    const perInstance = panel.find((q) => q.expr.includes("by (instance)"));
    const v0Line = panel.find((q) => isV0Only(q.expr));
    const gaugeOnly = addresses.v0Gauge.replaceAll(".", "[.]");
    const mine = await eventually(substitute(perInstance?.expr ?? "", gaugeOnly), allFinite);
    expect(mine.map((row) => [row.metric.instance, Number(row.value[1])])).toEqual([
      [addresses.v0Gauge, 0.25],
    ]);
    // The instances with counters keep their window's share in the same query.
    const all = await eventually(substitute(perInstance?.expr ?? "", ".+"), (r) => r.length === 3);
    const shares = numbers(all).sort();
    for (const [index, share] of [0.25, 0.4, 0.4].entries()) expect(shares[index]).toBeCloseTo(share, 9);
    expect(numbers(await eventually(substitute(v0Line?.expr ?? "", ".+"), allFinite))).toEqual([0.25]);
  });

  it("returns series from the real HAProxy for every front-door query, with both instances up", async () => {
    for (const query of frontDoorQueries) {
      await eventually(substitute(query.expr, ".+"), allFinite);
    }
    const states = await eventually(
      substitute(frontDoorQueries.find((q) => q.expr.startsWith("haproxy_server_status"))?.expr ?? "", ".+"),
      (r) => r.filter((row) => row.metric.state === "UP").length === 2,
    );
    expect(states.map((row) => row.metric.server).sort()).toEqual([
      haproxyServerName(0),
      haproxyServerName(1),
    ]);
    // Every request carries a session header: the responses panel counts them, and the front door's own 403.
    const responses = frontDoorQueries.find((q) => q.panel === "Front door: responses per second");
    const byCode = await eventually(substitute(responses?.expr ?? "", ".+"), (r) =>
      ["2xx", "4xx"].every((code) => r.some((row) => row.metric.code === code && Number(row.value[1]) > 0)),
    );
    expect(byCode.length).toBeGreaterThanOrEqual(2);
  });

  it("records each instance's share within each SLO target, and the fleet's from their counts", async () => {
    for (const engine of ["v1", "v0"] as const) {
      for (const [slo, share] of Object.entries(EXPECTED_SHARES[engine])) {
        const result = await eventually(
          `${sloSeries.instanceAttainment("5m")}{instance="${addresses[engine]}",slo="${slo}"}`,
          allFinite,
        );
        expect(numbers(result)[0], `${engine} ${slo}`).toBeCloseTo(share, 9);
      }
    }
    // One evaluation: the fleet's share is the sum of what is within over the sum of all, across engines.
    const check = `${sloSeries.fleetAttainment("5m")} - on (job, slo) (sum by (job, slo) (${sloSeries.goodRate("5m")}) / sum by (job, slo) (${sloSeries.totalRate("5m")}))`;
    const difference = await eventually(check, (r) => r.length === 3 && numbers(r).every(Number.isFinite));
    for (const value of numbers(difference)) expect(Math.abs(value)).toBeLessThan(1e-12);
    const fleet = await eventually(sloSeries.fleetAttainment("5m"), (r) => r.length === 3 && allFinite(r));
    for (const row of fleet) {
      const slo = row.metric.slo as keyof typeof EXPECTED_SHARES.v1;
      expect(Number(row.value[1])).toBeGreaterThan(EXPECTED_SHARES.v1[slo]);
      expect(Number(row.value[1])).toBeLessThan(1);
    }
  });

  it("evaluates every rule without error, and every SLO panel query returns series", async () => {
    for (const query of queries.filter((q) => q.panel.startsWith("SLO"))) {
      await eventually(substitute(query.expr, ".+"), allFinite);
    }
    type Rule = { name: string; health: string; lastError?: string; type: string };
    let rules: Rule[] = [];
    // Every group has run once when no rule's health is still "unknown".
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
      const response = await fetch(`${prometheusUrl}/api/v1/rules`, { signal: AbortSignal.timeout(5_000) });
      const body = (await response.json()) as { data: { groups: { rules: Rule[] }[] } };
      rules = body.data.groups.flatMap((group) => group.rules);
      if (rules.every((rule) => rule.health !== "unknown")) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(rules.length).toBe(6 + 4 * 8 + 2);
    for (const rule of rules)
      expect(`${rule.name}: ${rule.health} ${rule.lastError ?? ""}`).toBe(`${rule.name}: ok `);
    for (const record of new Set(
      rules.filter((rule) => rule.type === "recording").map((rule) => rule.name),
    )) {
      await eventually(record, allFinite);
    }
  });
});
