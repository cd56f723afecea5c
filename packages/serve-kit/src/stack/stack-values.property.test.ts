import { ScaledObject } from "@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject";
import { Ajv2020 } from "ajv/dist/2020.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  buildLoraAdapterResources,
  buildStackCommands,
  buildStackScaledObject,
  buildStackValues,
  type LoraAdapter,
  type ServeOptions,
  type StackOptions,
  type StackStorage,
} from "../index.js";
import { loraAdapterSchemaFromFixture, valuesSchemaFromFixture } from "../test/vllm-stack-chart.js";

const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
const validateValues = ajv.compile(valuesSchemaFromFixture());
const validateAdapter = ajv.compile(loraAdapterSchemaFromFixture());

const segment = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,11}$/);
const hubId = fc.tuple(segment, segment).map(([org, name]) => `${org}/${name}`);
const dnsLabel = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,10}[a-z0-9])?$/);
const absoluteDir = fc.array(segment, { minLength: 1, maxLength: 3 }).map((parts) => `/${parts.join("/")}`);
const secret = fc.record({ name: dnsLabel, key: fc.stringMatching(/^[A-Za-z0-9._-]{1,12}$/) });
const storage: fc.Arbitrary<StackStorage> = fc.oneof(
  fc.record(
    {
      kind: fc.constant("pvc" as const),
      size: fc.integer({ min: 1, max: 2000 }).map((n) => `${n}Gi`),
      storageClass: dnsLabel,
      accessMode: fc.constantFrom("ReadWriteOnce" as const, "ReadWriteMany" as const),
    },
    { requiredKeys: ["kind", "size"] },
  ),
  fc.record({ kind: fc.constant("claim" as const), claimName: dnsLabel, mountPath: absoluteDir }),
  fc.record({ kind: fc.constant("hostPath" as const), path: absoluteDir }),
);
const mountOf = (s: StackStorage) => (s.kind === "pvc" ? "/data" : s.kind === "claim" ? s.mountPath : s.path);
/** A reference the storage can serve: a hub id, or (with storage) a path under its mount. */
function weights(s: StackStorage | undefined, hubAllowed = true): fc.Arbitrary<string> {
  if (s === undefined) return hubId;
  const local = segment.map((leaf) => `${mountOf(s)}/${leaf}`);
  return hubAllowed ? fc.oneof(hubId, local) : local;
}
// Extra arguments the builders accept in both places: vLLM options they do not own.
const extraArgs = fc.array(
  fc.constantFrom(
    ["--max-num-seqs", "64"],
    ["--gpu-memory-utilization", "0.85"],
    ["--enforce-eager"],
    ["--seed", "7"],
  ),
  { maxLength: 3 },
);
const stackBase = fc.record(
  {
    name: dnsLabel,
    release: dnsLabel.map((label) => `r${label}`.slice(0, 12)).filter((label) => !label.endsWith("-")),
    namespace: dnsLabel,
    image: fc.tuple(segment, segment).map(([repo, tag]) => `vllm/${repo.toLowerCase()}:${tag}`),
    // A fixed count, or a range KEDA scales (the values hold its MIN; the ScaledObject is its own resource).
    replicas: fc.oneof(
      fc.integer({ min: 1, max: 16 }),
      fc
        .tuple(fc.integer({ min: 1, max: 16 }), fc.integer({ min: 0, max: 16 }))
        .map(([min, more]) => ({ min, max: min + more })),
    ),
    gpusPerReplica: fc.integer({ min: 1, max: 8 }),
    cpu: fc.integer({ min: 1, max: 128 }),
    memory: fc.integer({ min: 1, max: 1024 }).map((n) => `${n}Gi`),
    maxModelLen: fc.integer({ min: 1, max: 1 << 20 }),
    dtype: fc.constantFrom("auto" as const, "half" as const, "bfloat16" as const, "float32" as const),
    prefixCaching: fc.boolean(),
    hfTokenSecret: secret,
    routing: fc.constantFrom("round-robin" as const, "session" as const, "prefix" as const),
    runtimeClassName: fc.constantFrom("", "nvidia"),
    startupTimeoutSeconds: fc.integer({ min: 1, max: 86_400 }),
  },
  { requiredKeys: [] },
);

interface Case {
  config: ServeOptions;
  options: StackOptions;
  apiKey: string | undefined;
}

const apiKey = fc.option(fc.stringMatching(/^[A-Za-z0-9_-]{24,40}$/), { nil: undefined });

const fullCase: fc.Arbitrary<Case> = fc
  .record({ base: stackBase, storage: fc.option(storage, { nil: undefined }), apiKey, secret })
  .chain(({ base, storage, apiKey, secret }) =>
    fc
      .record({
        model: weights(storage),
        servedModelName: fc.option(segment, { nil: undefined }),
        extra: extraArgs,
      })
      .map(({ model, servedModelName, extra }) => ({
        apiKey,
        config: {
          kind: "full" as const,
          model,
          ...(servedModelName === undefined ? {} : { servedModelName }),
          ...(apiKey === undefined ? {} : { apiKey }),
          extraArgs: extra.flat(),
        },
        options: {
          ...base,
          ...(storage === undefined ? {} : { storage }),
          ...(apiKey === undefined ? {} : { apiKeySecret: secret }),
        },
      })),
  );

function loraCase(loading: "static" | "runtime"): fc.Arbitrary<Case> {
  // Runtime loading needs a key and local adapters under storage, or a chart-made claim to download into.
  const storageArbitrary = loading === "runtime" ? storage : fc.option(storage, { nil: undefined });
  return fc
    .record({
      base: stackBase,
      storage: storageArbitrary,
      apiKey,
      secret,
      maxLoraRank: fc.option(fc.constantFrom(8, 16, 32, 64), { nil: undefined }),
      maxLoras: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
    })
    .chain(({ base, storage, apiKey, secret, maxLoraRank, maxLoras }) => {
      const key = loading === "runtime" ? (apiKey ?? "k".repeat(32)) : apiKey;
      const hubAdapters = loading === "static" || storage?.kind === "pvc";
      return fc
        .record({
          baseModel: weights(storage),
          adapters: fc.uniqueArray(
            fc.record({ name: fc.stringMatching(/^[a-z0-9]{1,12}$/), path: weights(storage, hubAdapters) }),
            { minLength: 1, maxLength: 4, selector: (a: LoraAdapter) => a.name },
          ),
          extra: extraArgs,
        })
        .map(({ baseModel, adapters, extra }) => ({
          apiKey: key,
          config: {
            kind: "lora" as const,
            baseModel,
            adapters,
            ...(maxLoraRank === undefined ? {} : { maxLoraRank }),
            ...(maxLoras === undefined ? {} : { maxLoras }),
            ...(key === undefined ? {} : { apiKey: key }),
            extraArgs: extra.flat(),
          },
          options: {
            ...base,
            adapterLoading: loading,
            ...(storage === undefined ? {} : { storage }),
            ...(key === undefined ? {} : { apiKeySecret: secret }),
          },
        }));
    });
}

const anyCase = fc.oneof(fullCase, loraCase("static"), loraCase("runtime"));
/** Generous: the machine running the tests may be busy. */
const PROPERTY_TIMEOUT_MS = 120_000;

describe("buildStackValues over generated configurations", () => {
  it(
    "writes only keys the chart defines, with the types its schema gives",
    () => {
      fc.assert(
        fc.property(anyCase, ({ config, options }) => {
          const values = buildStackValues(config, options);
          const valid = validateValues(values);
          expect(validateValues.errors ?? [], JSON.stringify(values)).toEqual([]);
          expect(valid).toBe(true);
          // Plain data: nothing is lost or changed by a JSON round trip (no undefined, no class instances).
          expect(JSON.parse(JSON.stringify(values))).toEqual(values);
        }),
        { numRuns: 150 },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    "scales a range with a ScaledObject KEDA's own schema accepts, aimed at the Deployment the values make",
    () => {
      fc.assert(
        fc.property(anyCase, ({ config, options }) => {
          const scaled = buildStackScaledObject(config, options);
          const { replicas = 1 } = options;
          const range = typeof replicas === "number" ? { min: replicas, max: replicas } : replicas;
          expect(scaled === undefined).toBe(range.max === range.min);
          if (scaled === undefined) return;
          new ScaledObject(scaled).validate();
          const [spec] = buildStackValues(config, options).servingEngineSpec.modelSpec;
          expect(scaled.spec.scaleTargetRef.name).toBe(
            `${options.release ?? "vllm"}-${spec?.name}-deployment-vllm`,
          );
          expect([scaled.spec.minReplicaCount, scaled.spec.maxReplicaCount]).toEqual([range.min, range.max]);
          expect(JSON.stringify(scaled)).not.toContain("{model=");
        }),
        { numRuns: 150 },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    "serves what the configuration names, and never carries the API key's value",
    () => {
      fc.assert(
        fc.property(anyCase, ({ config, options, apiKey }) => {
          const stackOptions = options;
          const values = buildStackValues(config, stackOptions);
          const [spec] = values.servingEngineSpec.modelSpec;
          expect(values.servingEngineSpec.modelSpec).toHaveLength(1);
          expect(spec?.modelURL).toBe(config.kind === "full" ? config.model : config.baseModel);
          const { replicas = 1 } = options;
          expect(spec?.replicaCount).toBe(typeof replicas === "number" ? replicas : replicas.min);
          expect(spec?.requestGPU).toBe(options.gpusPerReplica ?? 1);
          expect(spec?.vllmConfig.tensorParallelSize).toBe(
            (options.gpusPerReplica ?? 1) > 1 ? options.gpusPerReplica : undefined,
          );
          expect(spec?.enableLoRA).toBe(config.kind === "lora");
          // The configuration's own extra arguments come last, unchanged.
          const extra = config.extraArgs ?? [];
          expect(spec?.vllmConfig.extraArgs.slice(spec.vllmConfig.extraArgs.length - extra.length)).toEqual(
            extra,
          );
          if (config.kind === "lora" && options.adapterLoading === "static") {
            expect(spec?.vllmConfig.extraArgs).toContain("--lora-modules");
            for (const adapter of config.adapters)
              expect(spec?.vllmConfig.extraArgs).toContain(`${adapter.name}=${adapter.path}`);
          }
          if (apiKey !== undefined) {
            expect(values.servingEngineSpec.vllmApiKey).toEqual({
              secretName: options.apiKeySecret?.name,
              secretKey: options.apiKeySecret?.key,
            });
            expect(JSON.stringify(values)).not.toContain(apiKey);
            const commands = buildStackCommands(config, stackOptions);
            expect(JSON.stringify(commands)).not.toContain(apiKey);
          }
        }),
        { numRuns: 150 },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );
});

describe("buildLoraAdapterResources over generated configurations", () => {
  it(
    "gives one resource per adapter, holding the CRD's required fields and nothing it does not define",
    () => {
      fc.assert(
        fc.property(loraCase("runtime"), ({ config, options, apiKey }) => {
          if (config.kind !== "lora") throw new Error("a LoRA case");
          const hubAdapter = config.adapters.some((adapter) => !adapter.path.startsWith("/"));
          if (hubAdapter && options.hfTokenSecret === undefined) {
            // The controller cannot download without credentials: refused, naming the option.
            expect(() => buildLoraAdapterResources(config, options)).toThrow(
              expect.objectContaining({ field: "hfTokenSecret" }),
            );
            return;
          }
          const stackOptions = options;
          const resources = buildLoraAdapterResources(config, stackOptions);
          const [spec] = buildStackValues(config, stackOptions).servingEngineSpec.modelSpec;
          expect(resources).toHaveLength(config.adapters.length);
          resources.forEach((resource, i) => {
            const adapter = config.adapters[i];
            const valid = validateAdapter(resource);
            expect(validateAdapter.errors ?? [], JSON.stringify(resource)).toEqual([]);
            expect(valid).toBe(true);
            expect(resource.spec.baseModel).toBe(spec?.name);
            expect(resource.spec.adapterSource.adapterName).toBe(adapter?.name);
            expect(resource.spec.adapterSource.type).toBe(
              adapter?.path.startsWith("/") ? "local" : "huggingface",
            );
            expect(resource.metadata.namespace).toBe(options.namespace);
            const source = resource.spec.adapterSource;
            if (source.type === "huggingface") {
              expect(source.credentialsSecretRef).toEqual({
                name: options.hfTokenSecret?.name,
                key: options.hfTokenSecret?.key,
              });
            }
          });
          expect(new Set(resources.map((r) => r.metadata.name)).size).toBe(resources.length);
          if (apiKey !== undefined) expect(JSON.stringify(resources)).not.toContain(apiKey);
        }),
        { numRuns: 150 },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );
});

describe("the derived schemas can fail", () => {
  const config: ServeOptions = { kind: "full", model: "acme/m" };
  it.each<[string, (values: Record<string, any>) => void]>([
    ["an unknown top-level key", (v) => (v.extra = 1)],
    ["an unknown modelSpec key", (v) => (v.servingEngineSpec.modelSpec[0].pvcExistingClaimName = "x")],
    ["a number where the chart wants an integer", (v) => (v.servingEngineSpec.modelSpec[0].requestCPU = 1.5)],
    [
      "a string where the chart wants an integer",
      (v) => (v.servingEngineSpec.modelSpec[0].replicaCount = "2"),
    ],
    ["a routing logic the chart does not know", (v) => (v.routerSpec.routingLogic = "random")],
    ["a number in extraArgs", (v) => v.servingEngineSpec.modelSpec[0].vllmConfig.extraArgs.push(8192)],
  ])("refuses %s", (_name, spoil) => {
    const values = structuredClone(buildStackValues(config)) as Record<string, any>;
    expect(validateValues(values)).toBe(true);
    spoil(values);
    expect(validateValues(values)).toBe(false);
  });

  it("refuses a LoraAdapter without a required field", () => {
    const resource = buildLoraAdapterResources(
      { kind: "lora", baseModel: "b/m", adapters: [{ name: "a", path: "/data/a" }], apiKey: "k".repeat(20) },
      {
        adapterLoading: "runtime",
        storage: { kind: "pvc", size: "1Gi" },
        apiKeySecret: { name: "s", key: "k" },
      },
    )[0] as Record<string, any>;
    expect(validateAdapter(resource)).toBe(true);
    delete resource.spec.loraAdapterDeploymentConfig.algorithm;
    expect(validateAdapter(resource)).toBe(false);
  });
});
