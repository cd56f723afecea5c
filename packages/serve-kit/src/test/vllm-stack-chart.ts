// What serve-kit relies on in vLLM production-stack's `vllm-stack` chart, version 0.1.12
// (vllm-project/production-stack, helm/values.schema.json and helm/crds/crd-lora-adapter.yaml), written
// down here in our own terms: the key paths the builders may write, with the JSON types the chart's schema
// gives each, and the fields the LoraAdapter CRD requires. `stack-chart-crosscheck.test.ts` holds this
// table to the real chart (at a6c01db, in test/fixtures; or a newer copy); the property tests hold the builders'
// output to the table, refusing any key it does not list (the chart's own schema accepts unknown keys).

export const VLLM_STACK_FIXTURE_VERSION = "0.1.12";

export type JsonType = "object" | "array" | "string" | "integer" | "number" | "boolean" | "null";

export interface KeyRule {
  /** The JSON type or types the chart's schema allows. */
  type: JsonType | readonly JsonType[];
  /** The values the chart's schema allows, where it lists them. */
  enum?: readonly string[];
}

/**
 * `a.b` is key `b` of object `a`; `a[]` is an item of array `a`. Every parent is listed before its children.
 * Objects listed with children are closed in the derived schema: only the listed keys are accepted.
 */
export const VLLM_STACK_KEYS: Readonly<Record<string, KeyRule>> = {
  servingEngineSpec: { type: "object" },
  "servingEngineSpec.enableEngine": { type: "boolean" },
  // The chart accepts a plain key too (it then makes a Secret of it); we only ever write the reference.
  "servingEngineSpec.vllmApiKey": { type: ["string", "object"] },
  "servingEngineSpec.vllmApiKey.secretName": { type: "string" },
  "servingEngineSpec.vllmApiKey.secretKey": { type: "string" },
  "servingEngineSpec.startupProbe": { type: "object" },
  "servingEngineSpec.startupProbe.periodSeconds": { type: "integer" },
  "servingEngineSpec.startupProbe.failureThreshold": { type: "integer" },
  "servingEngineSpec.modelSpec": { type: "array" },
  "servingEngineSpec.modelSpec[]": { type: "object" },
  "servingEngineSpec.modelSpec[].name": { type: "string" },
  "servingEngineSpec.modelSpec[].repository": { type: "string" },
  "servingEngineSpec.modelSpec[].tag": { type: "string" },
  "servingEngineSpec.modelSpec[].modelURL": { type: "string" },
  "servingEngineSpec.modelSpec[].replicaCount": { type: "integer" },
  "servingEngineSpec.modelSpec[].requestCPU": { type: "integer" },
  "servingEngineSpec.modelSpec[].requestMemory": { type: "string" },
  "servingEngineSpec.modelSpec[].requestGPU": { type: ["integer", "number", "string"] },
  "servingEngineSpec.modelSpec[].enableLoRA": { type: "boolean" },
  "servingEngineSpec.modelSpec[].runtimeClassName": { type: "string" },
  "servingEngineSpec.modelSpec[].env": { type: "array" },
  "servingEngineSpec.modelSpec[].hf_token": { type: ["string", "object"] },
  "servingEngineSpec.modelSpec[].hf_token.secretName": { type: "string" },
  "servingEngineSpec.modelSpec[].hf_token.secretKey": { type: "string" },
  "servingEngineSpec.modelSpec[].pvcStorage": { type: "string" },
  "servingEngineSpec.modelSpec[].pvcAccessMode": { type: "array" },
  "servingEngineSpec.modelSpec[].pvcAccessMode[]": { type: "string" },
  "servingEngineSpec.modelSpec[].storageClass": { type: "string" },
  // Kubernetes Volume and VolumeMount objects, which the chart passes through untouched.
  "servingEngineSpec.modelSpec[].extraVolumes": { type: "array" },
  "servingEngineSpec.modelSpec[].extraVolumeMounts": { type: "array" },
  "servingEngineSpec.modelSpec[].vllmConfig": { type: "object" },
  "servingEngineSpec.modelSpec[].vllmConfig.enablePrefixCaching": { type: "boolean" },
  "servingEngineSpec.modelSpec[].vllmConfig.maxModelLen": { type: "integer" },
  "servingEngineSpec.modelSpec[].vllmConfig.dtype": { type: "string" },
  "servingEngineSpec.modelSpec[].vllmConfig.maxLoras": { type: "integer" },
  "servingEngineSpec.modelSpec[].vllmConfig.tensorParallelSize": { type: "integer" },
  "servingEngineSpec.modelSpec[].vllmConfig.gpuMemoryUtilization": { type: ["integer", "number", "string"] },
  "servingEngineSpec.modelSpec[].vllmConfig.maxNumSeqs": { type: "integer" },
  "servingEngineSpec.modelSpec[].vllmConfig.extraArgs": { type: "array" },
  "servingEngineSpec.modelSpec[].vllmConfig.extraArgs[]": { type: "string" },
  routerSpec: { type: "object" },
  "routerSpec.enableRouter": { type: "boolean" },
  "routerSpec.routingLogic": {
    type: "string",
    enum: [
      "roundrobin",
      "session",
      "prefixaware",
      "kvaware",
      "disaggregated_prefill",
      "disaggregated_prefill_orchestrated",
    ],
  },
  "routerSpec.sessionKey": { type: "string" },
  loraController: { type: "object" },
  "loraController.enableLoraController": { type: "boolean" },
};

/**
 * The LoraAdapter CRD (`production-stack.vllm.ai/v1alpha1`, in the chart's crds/): for each object of the
 * spec we write, the fields it requires, the fields it knows, and the enums. Types: all strings unless listed.
 */
export const LORA_ADAPTER_CRD = {
  group: "production-stack.vllm.ai",
  version: "v1alpha1",
  kind: "LoraAdapter",
  objects: {
    spec: {
      required: ["adapterSource", "baseModel"],
      known: ["adapterSource", "baseModel", "loraAdapterDeploymentConfig", "vllmApiKey"],
    },
    "spec.adapterSource": {
      required: ["adapterName", "type"],
      known: [
        "adapterName",
        "adapterPath",
        "credentialsSecretRef",
        "maxAdapters",
        "pattern",
        "repository",
        "type",
      ],
    },
    "spec.adapterSource.credentialsSecretRef": { required: ["key", "name"], known: ["key", "name"] },
    "spec.loraAdapterDeploymentConfig": { required: ["algorithm"], known: ["algorithm", "replicas"] },
    "spec.vllmApiKey": { required: ["secretKey", "secretName"], known: ["secretKey", "secretName"] },
  },
  enums: {
    "spec.adapterSource.type": ["local", "s3", "http", "huggingface"],
    "spec.loraAdapterDeploymentConfig.algorithm": ["default", "ordered", "equalized"],
  },
} as const;

type Schema = Record<string, unknown>;

/** The value a fixture path names in plain values (`a.b[].c`: objects, and first items of arrays), if any. */
export function valueAt(values: unknown, path: string): unknown {
  let node: unknown = values;
  for (const part of path.split(".")) {
    const [key = "", ...items] = part.split("[]");
    node = (node as Record<string, unknown> | undefined)?.[key];
    for (const _ of items) node = Array.isArray(node) ? node[0] : undefined;
  }
  return node;
}

function ruleSchema(rule: KeyRule): Schema {
  return { type: rule.type, ...(rule.enum === undefined ? {} : { enum: rule.enum }) };
}

/**
 * A JSON Schema (2020-12) for values made of the listed keys only: every listed object is closed
 * (`additionalProperties: false`), so a key the chart does not define, or that we did not vet, fails.
 */
export function valuesSchemaFromFixture(keys: Readonly<Record<string, KeyRule>> = VLLM_STACK_KEYS): Schema {
  const root: Schema = { type: "object", properties: {}, additionalProperties: false };
  const nodes = new Map<string, Schema>([["", root]]);
  for (const [path, rule] of Object.entries(keys)) {
    const node = ruleSchema(rule);
    const isItem = path.endsWith("[]");
    const parentPath = isItem
      ? path.slice(0, -2)
      : path.includes(".")
        ? path.slice(0, path.lastIndexOf("."))
        : "";
    const parent = nodes.get(parentPath);
    if (parent === undefined) throw new Error(`fixture: ${path} is listed before its parent ${parentPath}`);
    if (isItem) parent.items = node;
    else {
      parent.properties ??= {};
      parent.additionalProperties = false;
      (parent.properties as Record<string, Schema>)[
        path.slice(parentPath === "" ? 0 : parentPath.length + 1)
      ] = node;
    }
    nodes.set(path, node);
  }
  return { $schema: "https://json-schema.org/draft/2020-12/schema", ...root };
}

/** A JSON Schema for one LoraAdapter resource: the CRD's required fields and enums, its objects closed. */
export function loraAdapterSchemaFromFixture(): Schema {
  const str = { type: "string", minLength: 1 };
  const object = (
    path: keyof typeof LORA_ADAPTER_CRD.objects,
    properties: Record<string, Schema>,
  ): Schema => {
    const { required, known } = LORA_ADAPTER_CRD.objects[path];
    for (const key of Object.keys(properties)) {
      if (!(known as readonly string[]).includes(key))
        throw new Error(`fixture: ${path}.${key} is not a CRD field`);
    }
    return { type: "object", required, properties, additionalProperties: false };
  };
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    required: ["apiVersion", "kind", "metadata", "spec"],
    additionalProperties: false,
    properties: {
      apiVersion: { const: `${LORA_ADAPTER_CRD.group}/${LORA_ADAPTER_CRD.version}` },
      kind: { const: LORA_ADAPTER_CRD.kind },
      metadata: {
        type: "object",
        required: ["name"],
        additionalProperties: false,
        properties: {
          // A DNS subdomain, as Kubernetes requires of object names.
          name: {
            type: "string",
            maxLength: 253,
            pattern: "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$",
          },
          namespace: { type: "string", pattern: "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$" },
        },
      },
      spec: object("spec", {
        baseModel: str,
        vllmApiKey: object("spec.vllmApiKey", { secretName: str, secretKey: str }),
        adapterSource: object("spec.adapterSource", {
          type: { enum: LORA_ADAPTER_CRD.enums["spec.adapterSource.type"] },
          adapterName: str,
          adapterPath: str,
          repository: str,
          credentialsSecretRef: object("spec.adapterSource.credentialsSecretRef", { name: str, key: str }),
        }),
        loraAdapterDeploymentConfig: object("spec.loraAdapterDeploymentConfig", {
          algorithm: { enum: LORA_ADAPTER_CRD.enums["spec.loraAdapterDeploymentConfig.algorithm"] },
        }),
      }),
    },
  };
}
