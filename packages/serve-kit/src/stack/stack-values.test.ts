import { describe, expect, it } from "vitest";
import {
  buildLoraAdapterResource,
  buildLoraAdapterResources,
  buildStackValues,
  ServeConfigError,
  type ServeOptions,
  type StackOptions,
  VLLM_STACK_CHART,
} from "../index.js";

const base = "meta-llama/Llama-3.1-8B-Instruct";
const lora: ServeOptions = {
  kind: "lora",
  baseModel: base,
  adapters: [
    { name: "support", path: "/data/adapters/support" },
    { name: "Sales_v2", path: "acme/sales-lora" },
  ],
  maxLoraRank: 32,
  maxLoras: 2,
  apiKey: "a-key-that-must-never-appear",
};
const keyRef = { name: "vllm-api-key", key: "VLLM_API_KEY" };

describe("buildStackValues", () => {
  it("turns a full configuration into one modelSpec and a router", () => {
    expect(
      buildStackValues(
        {
          kind: "full",
          model: "acme/support-llama-8b",
          servedModelName: "support",
          extraArgs: ["--seed", "7"],
        },
        { image: "vllm/vllm-openai:v0.11.0", replicas: 2, maxModelLen: 8192, dtype: "bfloat16" },
      ),
    ).toEqual({
      servingEngineSpec: {
        enableEngine: true,
        startupProbe: { periodSeconds: 10, failureThreshold: 180 },
        modelSpec: [
          {
            name: "support",
            repository: "vllm/vllm-openai",
            tag: "v0.11.0",
            modelURL: "acme/support-llama-8b",
            replicaCount: 2,
            requestCPU: 8,
            requestMemory: "32Gi",
            requestGPU: 1,
            enableLoRA: false,
            vllmConfig: {
              enablePrefixCaching: true,
              maxModelLen: 8192,
              dtype: "bfloat16",
              extraArgs: ["--served-model-name", "support", "--seed", "7"],
            },
          },
        ],
      },
      routerSpec: { enableRouter: true, routingLogic: "roundrobin" },
    });
  });

  it("serves LoRA adapters statically with --lora-modules, the key only as a Secret reference", () => {
    const values = buildStackValues(lora, {
      apiKeySecret: keyRef,
      storage: { kind: "pvc", size: "100Gi" },
      gpusPerReplica: 2,
    });
    const [spec] = values.servingEngineSpec.modelSpec;
    expect(values.servingEngineSpec.vllmApiKey).toEqual({
      secretName: "vllm-api-key",
      secretKey: "VLLM_API_KEY",
    });
    expect(spec).toMatchObject({
      name: "llama-3-1-8b-instruct",
      modelURL: base,
      enableLoRA: true,
      requestGPU: 2,
      pvcStorage: "100Gi",
      pvcAccessMode: ["ReadWriteOnce"],
      vllmConfig: {
        maxLoras: 2,
        tensorParallelSize: 2,
        extraArgs: [
          "--lora-modules",
          "support=/data/adapters/support",
          "Sales_v2=acme/sales-lora",
          "--max-lora-rank",
          "32",
        ],
      },
    });
    expect(values.loraController).toBeUndefined();
    expect(JSON.stringify(values)).not.toContain("a-key-that-must-never-appear");
  });

  it("leaves runtime loading to the LoRA controller, with vLLM's runtime endpoints turned on", () => {
    const values = buildStackValues(lora, {
      apiKeySecret: keyRef,
      adapterLoading: "runtime",
      storage: { kind: "pvc", size: "100Gi" },
      replicas: 3,
    });
    const [spec] = values.servingEngineSpec.modelSpec;
    expect(values.loraController).toEqual({ enableLoraController: true });
    expect(spec?.env).toEqual([{ name: "VLLM_ALLOW_RUNTIME_LORA_UPDATING", value: "True" }]);
    expect(spec?.vllmConfig.extraArgs).toEqual(["--max-lora-rank", "32"]);
    // Three replicas on several nodes all mount the claim.
    expect(spec?.pvcAccessMode).toEqual(["ReadWriteMany"]);
  });

  it.each<[string, { storage: StackOptions["storage"]; want: object }]>([
    [
      "an existing claim, read-only where the paths expect it",
      {
        storage: { kind: "claim", claimName: "weights", mountPath: "/models/" },
        want: {
          extraVolumes: [
            { name: "model-weights", persistentVolumeClaim: { claimName: "weights", readOnly: true } },
          ],
          extraVolumeMounts: [{ name: "model-weights", mountPath: "/models", readOnly: true }],
        },
      },
    ],
    [
      "a node directory, read-only at the same path",
      {
        storage: { kind: "hostPath", path: "/models" },
        want: {
          extraVolumes: [{ name: "model-weights", hostPath: { path: "/models", type: "Directory" } }],
          extraVolumeMounts: [{ name: "model-weights", mountPath: "/models", readOnly: true }],
        },
      },
    ],
  ])("mounts %s", (_name, { storage, want }) => {
    const [spec] = buildStackValues({ kind: "full", model: "/models/run-7" }, { storage }).servingEngineSpec
      .modelSpec;
    expect(spec).toMatchObject(want);
    expect(spec?.name).toBe("run-7");
  });

  it("names a session header for session routing, and may turn prefix caching off", () => {
    const values = buildStackValues(
      { kind: "full", model: "m/m" },
      { routing: "session", sessionHeader: "x-user-id", prefixCaching: false, runtimeClassName: "" },
    );
    expect(values.routerSpec).toEqual({
      enableRouter: true,
      routingLogic: "session",
      sessionKey: "x-user-id",
    });
    expect(values.servingEngineSpec.modelSpec[0]?.vllmConfig.enablePrefixCaching).toBe(false);
    expect(values.servingEngineSpec.modelSpec[0]?.runtimeClassName).toBe("");
  });

  it.each([
    ["round-robin (the default)", {}, { routingLogic: "roundrobin" }],
    ["round-robin", { routing: "round-robin" }, { routingLogic: "roundrobin" }],
    ["session", { routing: "session" }, { routingLogic: "session", sessionKey: "x-session-id" }],
    ["prefix", { routing: "prefix" }, { routingLogic: "prefixaware" }],
  ] as const)("routing %s: the router's logic of that name", (_, options, want) => {
    expect(buildStackValues({ kind: "full", model: "m/m" }, options).routerSpec).toEqual({
      enableRouter: true,
      ...want,
    });
  });

  it("shortens a default name from a 47-character model id so the engine Service name fits 63", () => {
    const [spec] = buildStackValues({ kind: "full", model: `acme/${"a".repeat(47)}` }, {}).servingEngineSpec
      .modelSpec;
    expect(`vllm-${spec?.name}-engine-service`.length).toBeLessThanOrEqual(63);
  });

  it("fits a default name between a long release and the chart's suffix", () => {
    const release = "r".repeat(40);
    const [spec] = buildStackValues(
      { kind: "full", model: "acme/a-very-long-model-name-indeed" },
      { release },
    ).servingEngineSpec.modelSpec;
    expect(`${release}-${spec?.name}-${VLLM_STACK_CHART.name}`.length).toBeLessThanOrEqual(63);
    expect(`${release}-${spec?.name}-engine-service`.length).toBeLessThanOrEqual(63);
    expect(spec?.name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
  });
});

describe("buildStackValues refuses, naming the field, the rule and what was given", () => {
  const full: ServeOptions = { kind: "full", model: "acme/m" };
  it.each<[string, { config?: ServeOptions; options: unknown; field: string; rule: RegExp }]>([
    ["a misspelt option", { options: { replica: 2 }, field: "replica", rule: /not an option/ }],
    ["a name that is no DNS label", { options: { name: "Support" }, field: "name", rule: /lower-case/ }],
    [
      "a name too long for the release",
      { options: { name: "n".repeat(50), release: "vllm" }, field: "name", rule: /at most 43 characters/ },
    ],
    [
      "a name of 44 characters, whose engine Service name would pass 63",
      {
        options: { name: "n".repeat(44), release: "vllm" },
        field: "name",
        rule: /at most 43 characters with release "vllm": the chart names the engine's Service <release>-<name>-engine-service/,
      },
    ],
    [
      "a release that starts with a digit, which no Service name may",
      { options: { release: "8b" }, field: "release", rule: /must start with a letter/ },
    ],
    ["a fractional CPU count", { options: { cpu: 1.5 }, field: "cpu", rule: /integer/ }],
    ["a memory that is no quantity", { options: { memory: "32 GB" }, field: "memory", rule: /quantity/ }],
    [
      "an image with a digest",
      { options: { image: "vllm/vllm-openai@sha256:abc" }, field: "image", rule: /digest/ },
    ],
    ["an unknown dtype", { options: { dtype: "fp8" }, field: "dtype", rule: /one of auto/ }],
    [
      "a routing logic needing LMCache",
      { options: { routing: "kvaware" }, field: "routing", rule: /one of round-robin, session, prefix/ },
    ],
    [
      // production-stack's router has no logic that counts open requests: least-busy was its roundrobin.
      "least-busy, which the router does not have",
      {
        options: { routing: "least-busy" },
        field: "routing",
        rule: /no logic there counts open requests\): use round-robin/,
      },
    ],
    [
      "a session header without session routing",
      {
        options: { routing: "prefix", sessionHeader: "x-user-id" },
        field: "sessionHeader",
        rule: /session' only/,
      },
    ],
    [
      "a header name HAProxy would read as a comment",
      {
        options: { routing: "session", sessionHeader: "x#user" },
        field: "sessionHeader",
        rule: /header name/,
      },
    ],
    [
      "an API key without a Secret",
      {
        config: { ...full, apiKey: "secret-value-1234" },
        options: {},
        field: "apiKeySecret",
        rule: /never goes/,
      },
    ],
    [
      "a Secret name with capitals",
      {
        options: { apiKeySecret: { name: "Key", key: "k" } },
        field: "apiKeySecret.name",
        rule: /DNS subdomain/,
      },
    ],
    [
      "a local model without storage",
      { config: { kind: "full", model: "/models/m" }, options: {}, field: "model", rule: /give storage/ },
    ],
    [
      "a local model outside the mount",
      {
        config: { kind: "full", model: "/models/m" },
        options: { storage: { kind: "pvc", size: "10Gi" } },
        field: "model",
        rule: /under \/data/,
      },
    ],
    [
      "a relative model path",
      {
        config: { kind: "full", model: "./m" },
        options: { storage: { kind: "pvc", size: "10Gi" } },
        field: "model",
        rule: /absolute path/,
      },
    ],
    [
      "a hostPath that is not absolute",
      { options: { storage: { kind: "hostPath", path: "models" } }, field: "storage.path", rule: /absolute/ },
    ],
    [
      "a claim mounted over the root",
      {
        options: { storage: { kind: "claim", claimName: "w", mountPath: "/" } },
        field: "storage.mountPath",
        rule: /below \//,
      },
    ],
    [
      "an unknown storage kind",
      { options: { storage: { kind: "nfs" } }, field: "storage.kind", rule: /pvc/ },
    ],
    [
      "an extra argument the chart writes",
      {
        config: { ...full, extraArgs: ["--max-model-len", "9"] },
        options: { maxModelLen: 8 },
        field: "extraArgs[0]",
        rule: /maxModelLen/,
      },
    ],
    [
      "tensor parallelism by hand",
      {
        config: { ...full, extraArgs: ["-tp", "2"] },
        options: {},
        field: "extraArgs[0]",
        rule: /gpusPerReplica/,
      },
    ],
    [
      "prefix caching by hand",
      {
        config: { ...full, extraArgs: ["--no-enable-prefix-caching"] },
        options: {},
        field: "extraArgs[0]",
        rule: /prefixCaching/,
      },
    ],
    [
      "adapter loading for a full model",
      { options: { adapterLoading: "runtime" }, field: "adapterLoading", rule: /LoRA/ },
    ],
    [
      "runtime loading without a key",
      {
        config: { ...lora, apiKey: undefined },
        options: { adapterLoading: "runtime", storage: { kind: "pvc", size: "1Gi" } },
        field: "apiKeySecret",
        rule: /trusted/,
      },
    ],
    [
      "runtime loading of a hub adapter without a claim to download into",
      {
        config: lora,
        options: {
          adapterLoading: "runtime",
          apiKeySecret: keyRef,
          storage: { kind: "claim", claimName: "w", mountPath: "/data" },
        },
        field: "adapters[1].path",
        rule: /kind 'pvc'/,
      },
    ],
    [
      "a bad serve configuration, as buildServeCommand would",
      { config: { kind: "full", model: "-m" }, options: {}, field: "model", rule: /must not start with '-'/ },
    ],
  ])("%s", (_name, { config = full, options, field, rule }) => {
    let caught: unknown;
    try {
      buildStackValues(config, options as StackOptions);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ServeConfigError);
    const error = caught as ServeConfigError;
    expect(error.field).toBe(field);
    expect(error.rule).toMatch(rule);
    expect(error.message).toMatch(/\(given .+\)$/);
    expect(error.message).not.toContain("a-key-that-must-never-appear");
    expect(error.message).not.toContain("secret-value-1234");
  });
});

describe("LoraAdapter resources", () => {
  const options: StackOptions = {
    apiKeySecret: keyRef,
    adapterLoading: "runtime",
    storage: { kind: "pvc", size: "100Gi" },
    namespace: "serving",
    hfTokenSecret: { name: "hf", key: "token" },
  };

  it("gives one per adapter: local paths as they are, hub repositories to download", () => {
    expect(buildLoraAdapterResources(lora, options)).toEqual([
      {
        apiVersion: "production-stack.vllm.ai/v1alpha1",
        kind: "LoraAdapter",
        metadata: { name: "llama-3-1-8b-instruct-support", namespace: "serving" },
        spec: {
          baseModel: "llama-3-1-8b-instruct",
          vllmApiKey: { secretName: "vllm-api-key", secretKey: "VLLM_API_KEY" },
          adapterSource: { type: "local", adapterName: "support", adapterPath: "/data/adapters/support" },
          loraAdapterDeploymentConfig: { algorithm: "default" },
        },
      },
      {
        apiVersion: "production-stack.vllm.ai/v1alpha1",
        kind: "LoraAdapter",
        metadata: { name: "llama-3-1-8b-instruct-sales-v2", namespace: "serving" },
        spec: {
          baseModel: "llama-3-1-8b-instruct",
          vllmApiKey: { secretName: "vllm-api-key", secretKey: "VLLM_API_KEY" },
          adapterSource: {
            type: "huggingface",
            adapterName: "Sales_v2",
            repository: "acme/sales-lora",
            credentialsSecretRef: { name: "hf", key: "token" },
          },
          loraAdapterDeploymentConfig: { algorithm: "default" },
        },
      },
    ]);
    expect(buildLoraAdapterResource(lora, options, "Sales_v2")).toEqual(
      buildLoraAdapterResources(lora, options)[1],
    );
  });

  it.each<[string, { config: ServeOptions; options: StackOptions; adapter?: string; field: string }]>([
    ["a full configuration", { config: { kind: "full", model: "m/m" }, options: {}, field: "kind" }],
    [
      "static loading, which would load twice",
      { config: lora, options: { ...options, adapterLoading: "static" }, field: "adapterLoading" },
    ],
    [
      "an adapter the configuration does not have",
      { config: lora, options, adapter: "nope", field: "adapterName" },
    ],
    [
      "a hub adapter without hfTokenSecret, which the controller cannot download",
      { config: lora, options: { ...options, hfTokenSecret: undefined }, field: "hfTokenSecret" },
    ],
    [
      "names that collide once made DNS names",
      {
        config: {
          ...lora,
          adapters: [
            { name: "a_b", path: "/data/x" },
            { name: "a.b", path: "/data/y" },
          ],
        },
        options,
        field: "adapters[1].name",
      },
    ],
  ])("refuses %s", (_name, { config, options, adapter, field }) => {
    const build = () =>
      adapter === undefined
        ? buildLoraAdapterResources(config, options)
        : buildLoraAdapterResource(config, options, adapter);
    expect(build).toThrow(ServeConfigError);
    expect(build).toThrow(expect.objectContaining({ field }));
  });
});
