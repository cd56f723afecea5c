import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  buildDockerCommand,
  buildServeCommand,
  buildStackCommands,
  buildStackValues,
  defaultMaxConnections,
  haproxyConfig,
  nginxConfig,
  serveConfigFromRecommendations,
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
