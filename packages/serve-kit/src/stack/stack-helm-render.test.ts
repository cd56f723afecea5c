import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments, stringify } from "yaml";
import type { ServeOptions } from "../serve-options.js";
import { extractHelm, type HelmMajor, helm, PRODUCTION_STACK_DIR, unpackChart } from "../test/helm.js";
import { buildStackScaledObject } from "./scaled-object.js";
import type { StackOptions } from "./stack-options.js";
import { buildStackValues } from "./stack-values.js";

// The values render through production-stack's real chart (0.1.12 at a6c01db, from the checkout
// VLLM_PRODUCTION_STACK_DIR names; skipped without one) with real helm 3 and 4, the
// chart's schema enforced, and pass `helm lint --strict`; and the chart's own KEDA route is shown closed.

const support: ServeOptions = { kind: "full", model: "acme/support-8b", servedModelName: "support" };
const lora: ServeOptions = {
  kind: "lora",
  baseModel: "meta-llama/Llama-3.1-8B-Instruct",
  adapters: [{ name: "sales", path: "/data/adapters/sales" }],
};

let dir = "";
let chart = "";
const binaries = new Map<HelmMajor, string>();
beforeAll(() => {
  if (PRODUCTION_STACK_DIR === undefined) return;
  dir = mkdtempSync(join(tmpdir(), "studio-stack-helm-"));
  chart = unpackChart(dir);
  for (const major of [3, 4] as const) binaries.set(major, extractHelm(major, dir));
});
afterAll(() => {
  if (dir !== "") rmSync(dir, { recursive: true, force: true });
});

let files = 0;
function valuesFile(values: unknown): string {
  const path = join(dir, `values-${files++}.yaml`);
  writeFileSync(path, stringify(values));
  return path;
}

type Resource = { kind: string; metadata: { name: string }; spec?: Record<string, unknown> };

async function render(
  major: HelmMajor,
  values: unknown,
): Promise<{ code: number; stderr: string; resources: Resource[] }> {
  const result = await helm(
    binaries.get(major) ?? "",
    ["template", "vllm", chart, "--values", valuesFile(values)],
    dir,
  );
  const resources =
    result.code === 0 ? parseAllDocuments(result.stdout).map((doc) => doc.toJS() as Resource) : [];
  return { code: result.code, stderr: result.stderr, resources: resources.filter(Boolean) };
}

describe.skipIf(PRODUCTION_STACK_DIR === undefined).each([3, 4] as const)(
  "helm %i with production-stack's chart",
  (major) => {
    it("knows which helm it runs", async () => {
      const result = await helm(binaries.get(major) ?? "", ["version", "--short"], dir);
      expect(result.stdout).toMatch(new RegExp(`^v${major}\\.`));
    });

    it.each<[string, ServeOptions, StackOptions]>([
      ["a range of replicas", support, { replicas: { min: 2, max: 6 }, scaleOn: { queue: 3, kv: 0.7 } }],
      ["a fixed count", support, { replicas: 2, routing: "session", apiKeySecret: { name: "k", key: "K" } }],
      [
        "LoRA adapters loaded at run time",
        lora,
        {
          replicas: { min: 1, max: 3 },
          adapterLoading: "runtime",
          apiKeySecret: { name: "k", key: "K" },
          storage: { kind: "pvc", size: "100Gi" },
          routing: "prefix",
        },
      ],
    ])(
      "renders %s with the schema enforced, the ScaledObject's target the Deployment it makes",
      async (_, config, options) => {
        const values = buildStackValues(config, options);
        const { code, stderr, resources } = await render(major, values);
        expect(stderr).toBe("");
        expect(code).toBe(0);
        const deployments = resources.filter((resource) => resource.kind === "Deployment");
        const scaled = buildStackScaledObject(config, options);
        const name =
          scaled?.spec.scaleTargetRef.name ??
          `vllm-${values.servingEngineSpec.modelSpec[0]?.name}-deployment-vllm`;
        const engine = deployments.find((deployment) => deployment.metadata.name === name);
        expect(
          engine,
          `a Deployment named ${name} among ${deployments.map((d) => d.metadata.name)}`,
        ).toBeDefined();
        // The chart starts MIN engines; KEDA moves them from there.
        expect(engine?.spec?.replicas).toBe(values.servingEngineSpec.modelSpec[0]?.replicaCount);
        if (scaled !== undefined) expect(engine?.spec?.replicas).toBe(scaled.spec.minReplicaCount);
        // The chart renders no ScaledObject of its own: ours is the one.
        expect(resources.some((resource) => resource.kind === "ScaledObject")).toBe(false);

        const lint = await helm(
          binaries.get(major) ?? "",
          ["lint", "--strict", chart, "--values", valuesFile(values)],
          dir,
        );
        expect(lint.stdout + lint.stderr).toContain("1 chart(s) linted, 0 chart(s) failed");
        expect(lint.code).toBe(0);
      },
    );

    it("enforces the schema: a routing logic it does not list is refused", async () => {
      const values = buildStackValues(support);
      const { code, stderr } = await render(major, {
        ...values,
        routerSpec: { ...values.routerSpec, routingLogic: "leastbusy" },
      });
      expect(code).toBe(1);
      expect(stderr).toMatch(/routingLogic/);
    });

    it("cannot carry our triggers in the chart's own KEDA values, whose default query reads a label vLLM does not write", async () => {
      const values = buildStackValues(support, { replicas: { min: 1, max: 4 } });
      const [spec] = values.servingEngineSpec.modelSpec;
      const triggers = buildStackScaledObject(support, { replicas: { min: 1, max: 4 } })?.spec.triggers;
      const withTriggers = {
        ...values,
        servingEngineSpec: {
          ...values.servingEngineSpec,
          modelSpec: [{ ...spec, keda: { enabled: true, triggers } }],
        },
      };
      const refused = await render(major, withTriggers);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/keda.*triggers/s);
      // Without triggers the chart writes its default: vllm:num_requests_waiting{model="support"}.
      const chartsOwn = {
        ...values,
        servingEngineSpec: { ...values.servingEngineSpec, modelSpec: [{ ...spec, keda: { enabled: true } }] },
      };
      const rendered = await render(major, chartsOwn);
      expect(rendered.code).toBe(0);
      const scaled = rendered.resources.find((resource) => resource.kind === "ScaledObject");
      const query = (scaled?.spec?.triggers as { metadata: { query: string } }[] | undefined)?.[0]?.metadata
        .query;
      expect(query).toBe('vllm:num_requests_waiting{model="support"}');
    });
  },
);
