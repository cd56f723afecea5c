import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  buildDockerCommand,
  buildServeCommand,
  buildStackCommands,
  buildStackScaledObject,
  buildStackValues,
  computeBenchMetrics,
  DEFAULT_DASHBOARD_UID,
  haproxyConfig,
  nginxConfig,
  parseSlo,
  planServe,
  serveConfigFromRecommendations,
  sloTargets,
  summarizeVllmMetrics,
  VLLM_PLAN_COMMIT,
} from "./index.js";
import { fixtureModel, gpuNamed, PLANNED_LOGS, PUBLISHED_LOGS } from "./test/plan-fixtures.js";

// The README's examples are what the builders give: each documented input, built, appears in it.
const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8")
  // A comment line indented by three spaces continues a wrapped command: join it to the line above.
  .replace(/\n\s*\/\/ {3}/g, " ")
  .replace(/[ \t]+/g, " ");

const mapping = { "llama-3.1-8b-instruct": "meta-llama/Llama-3.1-8B-Instruct" };
const recommendations = {
  snapshot_id: "0b5e9d4c-7a21-4f3e-8d6b-1c9a2e4f7b80",
  status: "completed" as const,
  recommended_experiments: [{ base_model_id: "llama-3.1-8b-instruct", lora: true, recommended: true }],
};

describe("README examples", () => {
  it("stack autoscaling: the triggers buildStackScaledObject writes", () => {
    const scaled = buildStackScaledObject(
      { kind: "full", model: "acme/support-llama-8b", servedModelName: "support" },
      { replicas: { min: 1, max: 4 }, scaleOn: { queue: 5, kv: 0.8 } },
    );
    const [queue, kv] = scaled?.spec.triggers ?? [];
    expect(readme).toContain(
      `metricType: "${queue?.metricType}", metadata: { query: '${queue?.metadata.query}', threshold: "5"`,
    );
    const [v1] = kv?.metadata.query.split(" or ") ?? [];
    expect(readme).toContain(
      `metricType: "${kv?.metricType}", metadata: { query: '${v1} or avg(vllm:gpu_cache_usage_perc{...})', threshold: "0.8"`,
    );
  });

  it("full model", () => {
    const serve = buildServeCommand({
      kind: "full",
      model: "acme/support-llama-8b",
      servedModelName: "support",
    });
    expect(readme).toContain(`serve.argv; // ${JSON.stringify(serve.argv).replaceAll(",", ", ")}`);
    expect(readme).toContain(`serve.shell; // "${serve.shell}"`);
    expect(readme).toContain(
      'serve.client; // { baseURL: "http://127.0.0.1:8000/v1", rootURL: "http://127.0.0.1:8000", model: "support", apiKey: "EMPTY" }',
    );
  });

  it("LoRA", () => {
    const serve = buildServeCommand({
      kind: "lora",
      baseModel: "meta-llama/Llama-3.1-8B-Instruct",
      adapters: [
        { name: "support", path: "/models/adapters/support-lora" },
        { name: "sales", path: "acme/sales-lora" },
      ],
      maxLoraRank: 32,
    });
    expect(readme).toContain(`// ${serve.shell}`);
  });

  it("recommendations and docker", () => {
    const options = serveConfigFromRecommendations(recommendations, {
      adapterPath: "/models/adapters/support-lora",
      baseModelMapping: mapping,
      maxLoraRank: 16,
    });
    const docker = buildDockerCommand(options, {
      image: "vllm/vllm-openai:v0.11.0",
      hfCacheDir: "/home/me/.cache/huggingface",
    });
    expect(readme).toContain(`// ${docker.shell}`);
  });

  it("nginx", () => {
    expect(nginxConfig({ upstreams: ["127.0.0.1:8001", "127.0.0.1:8002"], listen: 8000 })).toContain(
      "proxy_read_timeout 600s;",
    );
    expect(readme).toContain("waits up to 600 s between reads");
  });

  it("HAProxy", () => {
    const config = haproxyConfig({ servers: ["127.0.0.1:8001", "127.0.0.1:8002"], listen: 8000 });
    expect(config).toContain("balance leastconn");
    expect(config).toContain("default-server check inter 2s fall 2 rise 2 maxconn 1024");
    expect(readme).toContain("`maxNumSeqs` at once (vLLM's `--max-num-seqs`, default 1024)");
    expect(config).toContain("    maxconn 8192\n");
    expect(config).toMatch(
      /\nbackend vllm\n[\s\S]*\n {4}server vllm-0 127\.0\.0\.1:8001\n {4}server vllm-1 127\.0\.0\.1:8002\n/,
    );
    expect(readme).toContain(
      "the backend is `vllm`, its servers `vllm-0`, `vllm-1`, ... in the order\ngiven",
    );
    expect(readme).toContain("four times what\nthe instances batch, at least 4096");
    expect(config).toMatch(/retry-on conn-failure\n/);
    expect(readme).toContain("`/health` is checked every 2 s");
  });

  it("load-test metrics", () => {
    const sent = { ok: true, startMs: 0, promptTokens: 5 };
    const records = [
      { ...sent, ttftMs: 100, itlMs: [10, 10], latencyMs: 120, outputTokens: 3 },
      { ...sent, ttftMs: 900, itlMs: [], latencyMs: 900, outputTokens: 1 },
    ];
    const metrics = computeBenchMetrics(records, 12.5, parseSlo("ttft=500ms,tpot=50ms"));
    expect(readme).toContain('computeBenchMetrics(records, 12.5, parseSlo("ttft=500ms,tpot=50ms"))');
    // numpy.percentile's linear interpolation between the two TTFTs; the slow first token misses the SLO.
    expect(metrics.ttftMs?.p99).toBeCloseTo(892);
    expect(metrics.goodput?.share).toBe(0.5);
  });

  it("production-stack", () => {
    const config = { kind: "full", model: "acme/support-llama-8b", servedModelName: "support" } as const;
    const stack = {
      replicas: 2,
      image: "vllm/vllm-openai:v0.11.0",
      apiKeySecret: { name: "vllm-api-key", key: "VLLM_API_KEY" },
    };
    expect(buildStackValues(config, stack).servingEngineSpec.vllmApiKey).toEqual({
      secretName: "vllm-api-key",
      secretKey: "VLLM_API_KEY",
    });
    for (const step of buildStackCommands(config, stack).installSteps) expect(readme).toContain(step.shell);
    expect(readme).toContain("chart version `VLLM_STACK_CHART.version`, 0.1.12");
  });
});

/** "owner/name#N" for a GitHub issue or pull request, "owner/name" for a file, the link the table shows. */
function sourceLink(source: string): string {
  const url = source.split(" ")[0] ?? "";
  const issue = /github\.com\/[^/]+\/([^/]+)\/(?:issues|pull)\/(\d+)/.exec(url);
  if (issue) return `[${issue[1]}#${issue[2]}](${url})`;
  const file = /github\.com\/([^/]+\/[^/]+)\/blob\//.exec(url);
  if (!file) throw new Error(`not a GitHub issue, pull request or file: ${source}`);
  return `[${file[1]}](${url})`;
}

/** The README's row for a published log: the plan's figure, then vLLM's ("—" where it logged none). */
function planVersusLogRow(log: (typeof PLANNED_LOGS)[number]): string {
  const gpu = gpuNamed(log.gpu, log.gpus);
  const plan = planServe(fixtureModel(log.model), gpu, log.settings);
  const capacity = { tokens: plan.kvCache?.tokens ?? 0, maxConcurrency: plan.kvCache?.maxConcurrency ?? 0 };
  const gib = (bytes: number) => (bytes / 1024 ** 3).toFixed(2);
  const logged = (value: number | undefined, format: (n: number) => string) =>
    value === undefined ? "—" : format(value);
  const tokens = (count: number) => count.toLocaleString("en-US");
  const times = (x: number) => `${x.toFixed(2)}x`;
  return [
    "",
    log.model,
    log.gpus === 1 ? gpu.name : `${log.gpus} × ${gpu.name}`,
    `\`${log.flags}\``,
    `${gib(plan.weights.bytes)} / ${logged(log.logged.weightsGiB, (n) => n.toFixed(2))}`,
    `${gib(plan.availableKvMemory.signedBytes)} / ${logged(log.logged.availableKvGiB, (n) => n.toFixed(2))}`,
    `${tokens(capacity.tokens)} / ${logged(log.logged.kvTokens, tokens)}`,
    `${times(capacity.maxConcurrency)} / ${logged(log.logged.maxConcurrency, times)}`,
    `${plan.verdict.kind} / ${log.outcome ?? "—"}`,
    sourceLink(log.source),
    "",
  ]
    .join(" | ")
    .trim();
}

describe("README: will it fit?", () => {
  it.each(PLANNED_LOGS.map((log) => [`${log.model} ${log.flags}`, log] as const))(
    "the table's row for %s is what the plan gives today, beside vLLM's logged figures",
    (_, log) => {
      expect(readme).toContain(planVersusLogRow(log));
    },
  );

  it("the example's verdict: Llama 3.1 8B on an L4 at 16384 tokens", () => {
    const { verdict } = planServe(fixtureModel("llama-3.1-8b-instruct"), gpuNamed("L4"), {
      maxModelLen: 16384,
    });
    expect(verdict).toEqual({ kind: "fits", summary: expect.any(String), flags: [] });
    expect(readme).toContain(`plan.verdict; // { kind: "fits", summary: "${verdict.summary}", flags: [] }`);
  });

  it("names every published log's source and the vLLM commit the rules follow", () => {
    for (const log of PUBLISHED_LOGS) expect(readme).toContain(sourceLink(log.source));
    expect(readme).toContain(`vLLM commit \`${VLLM_PLAN_COMMIT.slice(0, 12)}\``);
  });

  it("states the SLO rules' bucket choice and the dashboard's uid as the builders have them", () => {
    const [ttft] = sloTargets("ttft=300ms");
    expect(ttft?.countedUpToSeconds).toBe(0.25);
    expect(readme).toContain("`ttft=300ms` counts up to 250 ms");
    expect(sloTargets("ttft=500ms")[0]?.countedUpToSeconds).toBe(0.5);
    expect(readme).toContain("`ttft=500ms` is a bound");
    expect(readme).toContain(`(\`${DEFAULT_DASHBOARD_UID}\` unless given)`);
  });

  it("shows sloTargets in the summary's options as summarizeVllmMetrics takes them", () => {
    expect(readme).toContain(
      'summarizeVllmMetrics(later, earlier, { slo: sloTargets("ttft=500ms,tpot=50ms") })',
    );
    const page = "vllm:num_requests_running 0\n";
    const summary = summarizeVllmMetrics(
      { text: page, timeMs: 2000 },
      { text: page, timeMs: 0 },
      {
        slo: sloTargets("ttft=500ms,tpot=50ms"),
      },
    );
    expect(summary.readable && summary.sloAttainment?.map((entry) => entry.slo)).toEqual(["ttft", "tpot"]);
  });
});
