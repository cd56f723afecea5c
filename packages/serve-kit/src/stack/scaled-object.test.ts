import { ScaledObject } from "@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject";
import { afterEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { ServeConfigError } from "../errors.js";
import type { ServeOptions } from "../serve-options.js";
import { promtool, tempFiles } from "../test/promtool.js";
import { buildStackScaledObject } from "./scaled-object.js";
import { buildStackCommands } from "./stack-commands.js";
import { buildStackValues } from "./stack-values.js";

const support: ServeOptions = { kind: "full", model: "acme/support-8b", servedModelName: "support" };

/** KEDA's own schema for ScaledObject (the @kubernetes-models/keda package): throws on a resource it refuses. */
function validateWithKeda(resource: unknown): void {
  new ScaledObject(resource as ConstructorParameters<typeof ScaledObject>[0]).validate();
}

describe("buildStackScaledObject", () => {
  it("scales the chart's engine Deployment on vLLM's own series for the served name, valid for KEDA", () => {
    const scaled = buildStackScaledObject(support, { replicas: { min: 1, max: 4 }, namespace: "serving" });
    expect(scaled).toBeDefined();
    validateWithKeda(scaled);
    expect(scaled?.metadata).toEqual({
      name: "vllm-support-autoscaler",
      namespace: "serving",
      labels: { model: "support", "helm-release-name": "vllm" },
    });
    expect(scaled?.spec).toEqual({
      // deployment-vllm-multi.yaml at production-stack a6c01db: "<release>-<modelSpec.name>-deployment-vllm".
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "vllm-support-deployment-vllm" },
      minReplicaCount: 1,
      maxReplicaCount: 4,
      pollingInterval: 15,
      cooldownPeriod: 360,
      advanced: {
        horizontalPodAutoscalerConfig: { behavior: { scaleDown: { stabilizationWindowSeconds: 300 } } },
      },
      triggers: [
        {
          type: "prometheus",
          name: "queue",
          metricType: "AverageValue",
          metadata: {
            serverAddress: "http://prometheus-operated.monitoring.svc:9090",
            query: 'sum(vllm:num_requests_waiting{model_name="support"})',
            threshold: "5",
          },
        },
        {
          type: "prometheus",
          name: "kv",
          metricType: "Value",
          metadata: {
            serverAddress: "http://prometheus-operated.monitoring.svc:9090",
            query:
              'avg(vllm:kv_cache_usage_perc{model_name="support"}) or avg(vllm:gpu_cache_usage_perc{model_name="support"})',
            threshold: "0.8",
          },
        },
      ],
    });
    // Never the chart's default query, which matches no series (vLLM labels model_name, not model).
    expect(JSON.stringify(scaled)).not.toMatch(/\{model=/);
  });

  it("takes the signals, the Prometheus and the scale-down window given; the base model names a LoRA serve", () => {
    const scaled = buildStackScaledObject(
      { kind: "lora", baseModel: "meta/llama-8b", adapters: [{ name: "a", path: "org/a" }] },
      {
        replicas: { min: 2, max: 6 },
        scaleOn: { kv: 0.6 },
        prometheusUrl: "https://prom.example:9090/",
        scaleDownAfterSeconds: 120,
      },
    );
    validateWithKeda(scaled);
    expect(scaled?.spec.triggers).toEqual([
      {
        type: "prometheus",
        name: "kv",
        metricType: "Value",
        metadata: {
          serverAddress: "https://prom.example:9090",
          query:
            'avg(vllm:kv_cache_usage_perc{model_name="meta/llama-8b"}) or avg(vllm:gpu_cache_usage_perc{model_name="meta/llama-8b"})',
          threshold: "0.6",
        },
      },
    ]);
    expect(scaled?.spec).toMatchObject({ minReplicaCount: 2, maxReplicaCount: 6 });
    expect(
      scaled?.spec.advanced.horizontalPodAutoscalerConfig.behavior.scaleDown.stabilizationWindowSeconds,
    ).toBe(120);
  });

  it("is absent for a fixed count, and the chart starts MIN engines of a range", () => {
    expect(buildStackScaledObject(support, { replicas: 3 })).toBeUndefined();
    expect(buildStackScaledObject(support, { replicas: { min: 2, max: 2 } })).toBeUndefined();
    const values = buildStackValues(support, { replicas: { min: 2, max: 5 } });
    expect(values.servingEngineSpec.modelSpec[0]?.replicaCount).toBe(2);
  });

  it("is applied after the chart, from the file beside the values", () => {
    const commands = buildStackCommands(
      support,
      { replicas: { min: 1, max: 3 }, namespace: "serving" },
      { scaledObjectFile: "deploy/scaledobject.yaml" },
    );
    expect(commands.applyScaledObject?.shell).toBe(
      "kubectl apply --namespace serving --filename deploy/scaledobject.yaml",
    );
    expect(commands.installSteps.at(-1)).toBe(commands.applyScaledObject);
    expect(buildStackCommands(support, { replicas: 2 }).applyScaledObject).toBeUndefined();
  });

  it.each<[string, object, string, RegExp]>([
    ["a range that ends below its start", { replicas: { min: 3, max: 1 } }, "replicas", /MIN or more/],
    ["a range from 0", { replicas: { min: 0, max: 2 } }, "replicas", /start at 1 or more/],
    ["a range of fractions", { replicas: { min: 1.5, max: 2 } }, "replicas", /whole numbers/],
    ["an unknown signal", { replicas: { min: 1, max: 2 }, scaleOn: { cpu: 1 } }, "scaleOn", /unknown "cpu"/],
    ["a negative queue", { replicas: { min: 1, max: 2 }, scaleOn: { queue: -1 } }, "scaleOn", /above 0/],
    ["a KV share past 1", { replicas: { min: 1, max: 2 }, scaleOn: { kv: 1.5 } }, "scaleOn", /at most 1/],
    ["no signal", { replicas: { min: 1, max: 2 }, scaleOn: {} }, "scaleOn", /at least one/],
    ["signals without a range", { replicas: 2, scaleOn: { queue: 3 } }, "scaleOn", /range of replicas/],
    [
      "a scale-down window the HPA refuses",
      { replicas: { min: 1, max: 2 }, scaleDownAfterSeconds: 3601 },
      "scaleDownAfterSeconds",
      /at most 1h/,
    ],
    [
      "a Prometheus by ftp",
      { replicas: { min: 1, max: 2 }, prometheusUrl: "ftp://p:9090" },
      "prometheusUrl",
      /http/,
    ],
    [
      "a Prometheus URL with a password",
      { replicas: { min: 1, max: 2 }, prometheusUrl: "http://u:secret@p:9090" },
      "prometheusUrl",
      /no user or password/,
    ],
  ])("refuses %s, naming the option", (_, options, field, rule) => {
    let caught: unknown;
    try {
      buildStackScaledObject(support, options);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ServeConfigError);
    expect((caught as ServeConfigError).field).toBe(field);
    expect((caught as ServeConfigError).rule).toMatch(rule);
    expect((caught as ServeConfigError).message).not.toContain("secret@");
  });
});

describe("the triggers' queries, run by Prometheus's own engine (promtool test rules)", () => {
  let remove: (() => void) | undefined;
  afterEach(() => remove?.());

  it("give KEDA the total waiting and the mean KV usage of this model's engines, V1 and V0, and nothing of others", async () => {
    const scaled = buildStackScaledObject(support, { replicas: { min: 1, max: 4 } });
    const [queue, kv] = scaled?.spec.triggers ?? [];
    const series = (name: string, model: string, pod: string, values: string) => ({
      series: `${name}{model_name="${model}",pod="${pod}"}`,
      values,
    });
    const tests = (inputSeries: object[], want: { queue: number; kv: number }) => ({
      interval: "15s",
      input_series: inputSeries,
      promql_expr_test: [
        { expr: queue?.metadata.query, eval_time: "0s", exp_samples: [{ labels: "{}", value: want.queue }] },
        { expr: kv?.metadata.query, eval_time: "0s", exp_samples: [{ labels: "{}", value: want.kv }] },
        // production-stack's default query reads a label vLLM does not write: no sample at all.
        { expr: 'vllm:num_requests_waiting{model="support"}', eval_time: "0s", exp_samples: [] },
      ],
    });
    const v1 = [
      series("vllm:num_requests_waiting", "support", "a", "7"),
      series("vllm:num_requests_waiting", "support", "b", "5"),
      series("vllm:num_requests_waiting", "other", "c", "40"),
      series("vllm:kv_cache_usage_perc", "support", "a", "0.9"),
      series("vllm:kv_cache_usage_perc", "support", "b", "0.5"),
      series("vllm:kv_cache_usage_perc", "other", "c", "1"),
    ];
    const v0 = [
      series("vllm:num_requests_waiting", "support", "a", "3"),
      series("vllm:gpu_cache_usage_perc", "support", "a", "0.25"),
      series("vllm:gpu_cache_usage_perc", "support", "b", "0.75"),
    ];
    const files = tempFiles({
      "empty.yml": "groups: []\n",
      "tests.yml": stringify({
        rule_files: ["empty.yml"],
        // A fleet mid-upgrade has both names: KEDA takes one element only, and `or` gives V1's alone.
        tests: [
          tests(v1, { queue: 12, kv: 0.7 }),
          tests(v0, { queue: 3, kv: 0.5 }),
          tests([...v1, ...v0.slice(1)], { queue: 12, kv: 0.7 }),
        ],
      }),
    });
    remove = files.remove;
    const result = await promtool(["test", "rules", "tests.yml"], files.dir);
    expect(result.output).toContain("SUCCESS");
    expect(result.code).toBe(0);
  });
});
