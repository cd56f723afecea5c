import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { VLLM_STACK_CHART } from "../index.js";
import { copyChartRepository, PRODUCTION_STACK_DIR } from "../test/helm.js";
import {
  LORA_ADAPTER_CRD,
  VLLM_STACK_FIXTURE_VERSION,
  VLLM_STACK_KEYS,
  valueAt,
} from "../test/vllm-stack-chart.js";
import { chartEngineDeployment } from "./chart.js";

// Holds our description of the chart (src/test/vllm-stack-chart.ts) to the real one: a checkout or bare clone
// of vllm-project/production-stack named by VLLM_PRODUCTION_STACK_DIR (copied out of it), to see whether the
// chart still agrees. Without it these tests are skipped: the chart is not vendored here.
let repository: string | undefined;
beforeAll(() => {
  if (PRODUCTION_STACK_DIR === undefined) return;
  repository = mkdtempSync(join(tmpdir(), "studio-chart-crosscheck-"));
  copyChartRepository(repository);
});
afterAll(() => {
  if (repository !== undefined) rmSync(repository, { recursive: true, force: true });
});

function readChartFile(path: string): string {
  return readFileSync(join(repository ?? "", path), "utf8");
}

type Node = Record<string, unknown>;

/** The node a fixture path names in a JSON Schema (properties and items) or in plain values (objects and first items). */
function schemaNode(schema: Node, path: string): Node | undefined {
  let node: Node | undefined = schema;
  for (const part of path.split(".")) {
    const [key = "", ...items] = part.split("[]");
    node = (node?.properties as Record<string, Node> | undefined)?.[key];
    for (const _ of items) node = node?.items as Node | undefined;
  }
  return node;
}

const typeSet = (type: unknown) => [...(Array.isArray(type) ? type : [type])].sort();

describe.skipIf(PRODUCTION_STACK_DIR === undefined)("the fixture against the real chart", () => {
  it("describes the chart version the builders pin", () => {
    const chart = parse(readChartFile("helm/Chart.yaml")) as { name: string; version: string };
    expect(chart.name).toBe(VLLM_STACK_CHART.name);
    expect(VLLM_STACK_FIXTURE_VERSION).toBe(VLLM_STACK_CHART.version);
    expect(chart.version, "the chart moved on: re-read its schema, update the fixture and the pin").toBe(
      VLLM_STACK_FIXTURE_VERSION,
    );
  });

  it("lists only keys values.yaml defines, with the types and enums values.schema.json gives", () => {
    const schema = JSON.parse(readChartFile("helm/values.schema.json")) as Node;
    const values = parse(readChartFile("helm/values.yaml")) as unknown;
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    const mismatches: string[] = [];
    for (const [path, rule] of Object.entries(VLLM_STACK_KEYS)) {
      const node = schemaNode(schema, path);
      if (node === undefined) {
        mismatches.push(`${path}: not in values.schema.json`);
        continue;
      }
      if (valueAt(values, path) === undefined) mismatches.push(`${path}: not in values.yaml`);
      if (JSON.stringify(typeSet(node.type)) !== JSON.stringify(typeSet(rule.type))) {
        mismatches.push(
          `${path}: the chart says ${JSON.stringify(node.type)}, the fixture ${JSON.stringify(rule.type)}`,
        );
      }
      if (JSON.stringify(node.enum) !== JSON.stringify(rule.enum)) {
        mismatches.push(
          `${path}: the chart's enum ${JSON.stringify(node.enum)}, the fixture's ${JSON.stringify(rule.enum)}`,
        );
      }
    }
    expect(mismatches).toEqual([]);
  });

  it("names the engine Deployment as the rollout and the ScaledObject target it", () => {
    const template = readChartFile("helm/templates/deployment-vllm-multi.yaml");
    expect(template).toContain('name: "{{ .Release.Name }}-{{$modelSpec.name}}-deployment-vllm"');
    expect(chartEngineDeployment("{{ .Release.Name }}", "{{$modelSpec.name}}")).toBe(
      "{{ .Release.Name }}-{{$modelSpec.name}}-deployment-vllm",
    );
  });

  it("gives the LoraAdapter CRD's required fields, known fields and enums", () => {
    const crd = parse(readChartFile("helm/crds/crd-lora-adapter.yaml")) as {
      spec: {
        group: string;
        names: { kind: string };
        versions: { name: string; schema: { openAPIV3Schema: Node } }[];
      };
    };
    expect(crd.spec.group).toBe(LORA_ADAPTER_CRD.group);
    expect(crd.spec.names.kind).toBe(LORA_ADAPTER_CRD.kind);
    const version = crd.spec.versions.find((v) => v.name === LORA_ADAPTER_CRD.version);
    expect(version, `the CRD serves ${LORA_ADAPTER_CRD.version}`).toBeDefined();
    const root = version?.schema.openAPIV3Schema ?? {};
    for (const [path, { required, known }] of Object.entries(LORA_ADAPTER_CRD.objects)) {
      const node = schemaNode(root, path);
      expect(node, path).toBeDefined();
      expect([...((node?.required as string[]) ?? [])].sort(), `${path} required`).toEqual(
        [...required].sort(),
      );
      expect(Object.keys((node?.properties as Node) ?? {}).sort(), `${path} fields`).toEqual(
        [...known].sort(),
      );
    }
    for (const [path, values] of Object.entries(LORA_ADAPTER_CRD.enums)) {
      expect(schemaNode(root, path)?.enum, path).toEqual(values);
    }
  });
});
