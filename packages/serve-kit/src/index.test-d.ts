import type { Recommendations } from "@finetune-studio/types";
import { assertType, describe, expectTypeOf, it } from "vitest";
import type * as publicEntry from "./index.js";
import {
  buildDockerCommand,
  buildLoraAdapterResources,
  buildServeCommand,
  buildStackCommands,
  buildStackValues,
  findGpuModel,
  GPU_MODELS,
  type GpuModel,
  type LatencyPercentiles,
  type LoraAdapterResource,
  type MaxLoraRank,
  maxLoraRankFor,
  nginxConfig,
  type PlanKvCache,
  type PlanSettings,
  type PlanVerdict,
  planServe,
  prometheusConfig,
  prometheusRules,
  type ServeClientConfig,
  type ServeCommand,
  type ServeConfigError,
  type ServeOptions,
  type ServePlan,
  type StackCommands,
  type StackValues,
  serveConfigFromRecommendations,
  summarizeVllmMetrics,
  VLLM_PLAN_COMMIT,
  type VllmMetricsSummary,
} from "./index.js";

describe("types", () => {
  it("buildServeCommand takes either shape and returns plain data", () => {
    expectTypeOf(buildServeCommand({ kind: "full", model: "m" })).toEqualTypeOf<ServeCommand>();
    expectTypeOf(buildServeCommand).returns.toHaveProperty("argv").toEqualTypeOf<string[]>();
    expectTypeOf(buildServeCommand).returns.toHaveProperty("env").toEqualTypeOf<Record<string, string>>();
    expectTypeOf<ServeCommand["client"]>().toEqualTypeOf<ServeClientConfig>();
    assertType(
      buildServeCommand({
        kind: "lora",
        baseModel: "b",
        adapters: [{ name: "a", path: "/a" }],
        maxLoraRank: 64,
      }),
    );
    assertType(buildDockerCommand({ kind: "full", model: "m" }, { image: "vllm/vllm-openai:v0.11.0" }));
  });

  it("takes vLLM's engine options from the one table, and a base-model name for LoRA", () => {
    buildServeCommand({
      kind: "lora",
      baseModel: "b",
      adapters: [{ name: "a", path: "/a" }],
      servedModelName: "base",
      maxModelLen: 8192,
      dtype: "bfloat16",
      gpuMemoryUtilization: 0.85,
      tensorParallelSize: 2,
      maxNumSeqs: 64,
      enablePrefixCaching: true,
      quantization: "awq",
      kvCacheDtype: "fp8",
    });
  });

  it("refuses shapes that cannot be served", () => {
    // @ts-expect-error: kind is required
    buildServeCommand({ model: "m" });
    // @ts-expect-error: a LoRA serve needs adapters
    buildServeCommand({ kind: "lora", baseModel: "b" });
    // @ts-expect-error: adapters belong to LoRA
    buildServeCommand({ kind: "full", model: "m", adapters: [] });
    // @ts-expect-error: the LoRA rank belongs to a LoRA serve
    buildServeCommand({ kind: "full", model: "m", maxLoraRank: 16 });
    // @ts-expect-error: dtype is one of vLLM's names
    buildServeCommand({ kind: "full", model: "m", dtype: "fp8" });
    // @ts-expect-error: the KV cache's type is one of vLLM's names
    buildServeCommand({ kind: "full", model: "m", kvCacheDtype: "int4" });
    // @ts-expect-error: the port is a number
    buildServeCommand({ kind: "full", model: "m", port: "8000" });
    // @ts-expect-error: the docker options are image and hfCacheDir
    buildDockerCommand({ kind: "full", model: "m" }, { gpus: "all" });
  });

  it("serveConfigFromRecommendations wants the weights and returns builder input", () => {
    const recs = {} as Recommendations;
    expectTypeOf(serveConfigFromRecommendations(recs, { adapterPath: "/a" })).toEqualTypeOf<ServeOptions>();
    assertType(serveConfigFromRecommendations(recs, { modelPath: "/m", baseModelMapping: { a: "b" } }));
    // @ts-expect-error: say where the fine-tuned weights are
    serveConfigFromRecommendations(recs, {});
    // @ts-expect-error: an adapter name goes with an adapter path
    serveConfigFromRecommendations(recs, { modelPath: "/m", adapterName: "x" });
  });

  it("nginxConfig returns the config text; helpers are typed", () => {
    expectTypeOf(nginxConfig({ upstreams: ["127.0.0.1:8001"], listen: 8000 })).toEqualTypeOf<string>();
    expectTypeOf(maxLoraRankFor(48)).toEqualTypeOf<MaxLoraRank | undefined>();
    expectTypeOf<MaxLoraRank>().toEqualTypeOf<1 | 8 | 16 | 32 | 64 | 128 | 256 | 320 | 512>();
    expectTypeOf<ServeConfigError["field"]>().toEqualTypeOf<string>();
  });
  it("the monitoring functions take plain data and say whether the page was readable", () => {
    const summary = summarizeVllmMetrics({ text: "", timeMs: 0 }, { text: "", timeMs: 0 });
    expectTypeOf(summary).toEqualTypeOf<VllmMetricsSummary>();
    if (summary.readable) {
      expectTypeOf(summary.kvCacheUsage).toEqualTypeOf<number | null>();
      expectTypeOf(summary.timeToFirstToken).toEqualTypeOf<LatencyPercentiles | null>();
      expectTypeOf(summary.runningAdapters).toEqualTypeOf<readonly string[]>();
    } else {
      expectTypeOf(summary.reason).toEqualTypeOf<string>();
    }
    expectTypeOf(prometheusConfig({ targets: ["127.0.0.1:8001"] })).toEqualTypeOf<string>();
    expectTypeOf(prometheusRules({ thresholds: { kvCacheUsage: 0.9 } })).toEqualTypeOf<string>();
    // @ts-expect-error: a scrape text without its time cannot give rates
    summarizeVllmMetrics({ text: "" });
    // @ts-expect-error: thresholds are numbers
    prometheusRules({ thresholds: { kvCacheUsage: "90%" } });
    // @ts-expect-error: targets are host:port strings in a list
    prometheusConfig({ targets: "127.0.0.1:8001" });
  });

  it("the stack builders take a serve configuration and return plain data", () => {
    const full: ServeOptions = { kind: "full", model: "m/m" };
    expectTypeOf(buildStackValues(full)).toEqualTypeOf<StackValues>();
    expectTypeOf(buildStackCommands(full, { release: "r" })).toEqualTypeOf<StackCommands>();
    expectTypeOf(buildLoraAdapterResources(full, {})).toEqualTypeOf<LoraAdapterResource[]>();
    assertType(buildStackValues(full, { storage: { kind: "claim", claimName: "c", mountPath: "/m" } }));
    // @ts-expect-error: a key is a Secret reference, never a value
    buildStackValues(full, { apiKeySecret: "sk-123" });
    // @ts-expect-error: routing modes that need LMCache are not offered
    buildStackValues(full, { routingLogic: "kvaware" });
    // @ts-expect-error: a pvc needs a size
    buildStackValues(full, { storage: { kind: "pvc" } });
    // @ts-expect-error: a secret source is a file or a variable
    buildStackCommands(full, {}, { apiKeyFrom: { value: "sk-123" } });
  });

  it("planServe takes parsed files, a GPU and a serve's engine options, and returns a plan", () => {
    const model = { config: {}, safetensorsIndex: {} };
    const gpu = { name: "L4", memoryBytes: 24_000_000_000, count: 1 };
    expectTypeOf(planServe(model, gpu)).toEqualTypeOf<ServePlan>();
    planServe(
      { config: {}, weightsBytes: 1 },
      { memoryBytes: 1 },
      { maxModelLen: 8192, kvCacheDtype: "fp8" },
    );
    planServe(model, gpu, {
      enableLora: true,
      maxLoras: 2,
      maxLoraRank: 64,
      maxCpuLoras: 4,
      enforceEager: true,
    });
    // A serve's engine options are plan settings as they are.
    const engine: PlanSettings = { maxModelLen: 4096, tensorParallelSize: 2, maxNumBatchedTokens: 8192 };
    planServe(model, gpu, engine);
    // @ts-expect-error: the KV cache's type is one of vLLM's names
    planServe(model, gpu, { kvCacheDtype: "int4" });
    // @ts-expect-error: a misspelt setting
    planServe(model, gpu, { maxModelLength: 4096 });
    // @ts-expect-error: the GPU's memory is required
    planServe(model, { name: "L4" });
  });

  it("a plan's figures: the KV cache only for a known architecture, a verdict narrowed by its kind", () => {
    const plan = planServe({ config: {} }, { memoryBytes: 1 });
    expectTypeOf(plan.kvCache).toEqualTypeOf<PlanKvCache | null>();
    expectTypeOf(plan.weights.bytes).toEqualTypeOf<number>();
    expectTypeOf(plan.weights.predicts).toEqualTypeOf<string | null>();
    expectTypeOf(plan.verdict).toEqualTypeOf<PlanVerdict>();
    if (plan.verdict.kind === "fits-with-max-model-len") expectTypeOf(plan.verdict.maxModelLen).toBeNumber();
    if (plan.verdict.kind === "needs-tensor-parallel")
      expectTypeOf(plan.verdict.tensorParallelSize).toBeNumber();
    expectTypeOf(plan.verdict.flags).toEqualTypeOf<string[]>();
    expectTypeOf(VLLM_PLAN_COMMIT).toBeString();
  });

  it("the GPU table", () => {
    expectTypeOf(GPU_MODELS).toEqualTypeOf<readonly GpuModel[]>();
    expectTypeOf(findGpuModel("H100")).toEqualTypeOf<GpuModel | undefined>();
  });

  it("keeps what only the CLI needs out of the public entry", () => {
    type CliPlumbing =
      | "HAPROXY_BACKEND"
      | "haproxyServerName"
      | "connectionsWithinFileLimit"
      | "defaultMaxConnections"
      | "MAX_FRONT_CONNECTIONS"
      | "safetensorsHeaderBytes"
      | "checkListenAddress";
    expectTypeOf<Extract<keyof typeof publicEntry, CliPlumbing>>().toBeNever();
  });
});
