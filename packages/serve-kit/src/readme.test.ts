import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  buildDockerCommand,
  buildServeCommand,
  buildStackCommands,
  buildStackValues,
  DEFAULT_DASHBOARD_UID,
  defaultMaxConnections,
  findGpuModel,
  haproxyConfig,
  nginxConfig,
  planServe,
  serveConfigFromRecommendations,
  sloTargets,
  VLLM_PLAN_COMMIT,
} from "./index.js";

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
    expect(defaultMaxConnections(2)).toBe(8192);
    expect(readme).toContain("four times what\nthe instances batch, at least 4096");
    expect(config).toMatch(/retry-on conn-failure\n/);
    expect(readme).toContain("`/health` is checked every 2 s");
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

interface PublishedLog {
  model: string;
  gpu: string;
  gpus: number;
  flags: string;
  settings: Record<string, number> | null;
  logged: { weightsGiB: number; availableKvGiB: number; kvTokens: number; maxConcurrency: number };
  source: string;
}

const fixture = (path: string): unknown =>
  JSON.parse(readFileSync(new URL(`./plan/fixtures/${path}`, import.meta.url), "utf8"));

/** "owner/name#N" for a GitHub issue or pull request address, the link the table shows. */
function sourceLink(source: string): string {
  const url = source.split(" ")[0] ?? "";
  const match = /github\.com\/[^/]+\/([^/]+)\/(?:issues|pull)\/(\d+)/.exec(url);
  if (!match) throw new Error(`not a GitHub issue or pull request: ${source}`);
  return `[${match[1]}#${match[2]}](${url})`;
}

/** The README's row for a published log: the plan's figure, then vLLM's, for each. */
function planVersusLogRow(log: PublishedLog): string {
  const found = findGpuModel(log.gpu);
  if (!found || !log.settings) throw new Error(`cannot plan ${log.model} on ${log.gpu}`);
  const plan = planServe(
    {
      config: fixture(`${log.model}/config.json`),
      safetensorsIndex: fixture(`${log.model}/model.safetensors.index.json`),
    },
    { name: found.name, memoryBytes: found.memoryBytes, count: log.gpus },
    log.settings,
  );
  const gib = (bytes: number) => (bytes / 1024 ** 3).toFixed(2);
  const tokens = (count: number) => count.toLocaleString("en-US");
  return [
    "",
    log.model,
    log.gpus === 1 ? found.name : `${log.gpus} × ${found.name}`,
    `\`${log.flags}\``,
    `${gib(plan.weights.bytes)} / ${log.logged.weightsGiB.toFixed(2)}`,
    `${gib(plan.availableKvMemory.signedBytes)} / ${log.logged.availableKvGiB.toFixed(2)}`,
    `${tokens(plan.kvCache?.tokens ?? 0)} / ${tokens(log.logged.kvTokens)}`,
    `${(plan.kvCache?.maxConcurrency ?? 0).toFixed(2)}x / ${log.logged.maxConcurrency.toFixed(2)}x`,
    sourceLink(log.source),
    "",
  ]
    .join(" | ")
    .trim();
}

describe("README: will it fit?", () => {
  const logs = fixture("vllm-logs.json") as PublishedLog[];

  it.each(logs.filter((log) => log.settings !== null).map((log) => [log.flags, log] as const))(
    "the table's row for %s is what the plan gives today, beside vLLM's logged figures",
    (_, log) => {
      expect(readme).toContain(planVersusLogRow(log));
    },
  );

  it("the example's verdict: Llama 3.1 8B on an L4 at 32768 tokens", () => {
    const l4 = findGpuModel("L4");
    if (!l4) throw new Error("no L4 in the table");
    const model = "llama-3.1-8b-instruct";
    const { verdict } = planServe(
      {
        config: fixture(`${model}/config.json`),
        safetensorsIndex: fixture(`${model}/model.safetensors.index.json`),
      },
      { name: l4.name, memoryBytes: l4.memoryBytes },
      { maxModelLen: 32768 },
    );
    expect(verdict).toEqual({ kind: "fits", summary: expect.any(String), flags: [] });
    expect(readme).toContain(`plan.verdict; // { kind: "fits", summary: "${verdict.summary}", flags: [] }`);
  });

  it("names every published log's source and the vLLM commit the rules follow", () => {
    for (const log of logs) expect(readme).toContain(sourceLink(log.source));
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
});
