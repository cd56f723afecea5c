import type { NormalizedLora } from "../internal/normalize.js";
import { refuse } from "../internal/validate.js";
import type { LoraAdapter, ServeOptions } from "../serve-options.js";
import { LORA_ADAPTER_API_VERSION } from "./chart.js";
import { dnsLabelFrom } from "./kubernetes-names.js";
import { isLocalPath, type NormalizedStack, normalizeStackOptions } from "./normalize-stack.js";
import type { LoraAdapterResource, StackOptions } from "./stack-options.js";

/**
 * Builds the `LoraAdapter` resource (`production-stack.vllm.ai/v1alpha1`) that makes the chart's LoRA
 * controller load one adapter of a LoRA configuration on every engine of the model, through vLLM's runtime
 * endpoints: a local path is loaded where it is (under the mounted storage), a hub repository is first
 * downloaded into the model's claim. Use it with `adapterLoading: "runtime"` and the same options as
 * `buildStackValues`; apply it with `kubectl apply -f` once the chart is installed. Pure; throws a
 * `ServeConfigError` for bad input or an adapter the configuration does not have.
 */
export function buildLoraAdapterResource(
  config: ServeOptions,
  options: StackOptions,
  adapterName: string,
): LoraAdapterResource {
  const stack = normalizeLoraStack(config, options);
  const adapter = stack.serve.adapters.find((candidate) => candidate.name === adapterName);
  if (adapter === undefined) {
    refuse(
      "adapterName",
      `must be one of the configuration's adapters: ${stack.serve.adapters.map((a) => a.name).join(", ")}`,
      adapterName,
    );
  }
  return loraAdapterResource(stack, adapter);
}

/** One `LoraAdapter` resource per adapter of the configuration, in its order. */
export function buildLoraAdapterResources(
  config: ServeOptions,
  options: StackOptions,
): LoraAdapterResource[] {
  const stack = normalizeLoraStack(config, options);
  const adapterByResource = new Map<string, string>();
  return stack.serve.adapters.map((adapter, i) => {
    const resource = loraAdapterResource(stack, adapter);
    const other = adapterByResource.get(resource.metadata.name);
    if (other !== undefined) {
      refuse(
        `adapters[${i}].name`,
        `must differ from "${other}" in more than case and punctuation: both would name the resource "${resource.metadata.name}"`,
        adapter.name,
      );
    }
    adapterByResource.set(resource.metadata.name, adapter.name);
    return resource;
  });
}

type LoraStack = NormalizedStack & { serve: NormalizedLora };

function normalizeLoraStack(config: ServeOptions, options: StackOptions): LoraStack {
  const stack = normalizeStackOptions(config, options);
  if (stack.serve.kind !== "lora") {
    refuse("kind", "must be 'lora' for LoraAdapter resources", stack.serve.kind);
  }
  if (stack.adapterLoading !== "runtime") {
    refuse(
      "adapterLoading",
      "must be 'runtime' for LoraAdapter resources: with 'static' the engines load the adapters themselves, and the controller would load them twice",
      options.adapterLoading,
    );
  }
  return stack as LoraStack;
}

/**
 * The token Secret for a hub download. The controller at production-stack a6c01db
 * (loraadapter_controller.go) reads `adapterSource.credentialsSecretRef` without a nil check when it
 * downloads, so a hub adapter without one cannot be loaded at all, public or not: refused here instead.
 */
function hubCredentials(stack: NormalizedStack, adapter: LoraAdapter): { name: string; key: string } {
  if (stack.hfTokenSecret === undefined) {
    refuse(
      "hfTokenSecret",
      `must name the Secret { name, key } with a hub token when an adapter is loaded from the hub at runtime ("${adapter.name}" from ${adapter.path}): the LoRA controller downloads with adapterSource.credentialsSecretRef and fails without one`,
      undefined,
    );
  }
  return { name: stack.hfTokenSecret.name, key: stack.hfTokenSecret.key };
}

/** `<model name>-<adapter name>`, made a DNS subdomain, since adapter names may hold capitals and `_`. */
function resourceName(stack: NormalizedStack, adapter: LoraAdapter): string {
  return `${stack.name}-${dnsLabelFrom(adapter.name, 253 - stack.name.length - 1)}`;
}

function loraAdapterResource(stack: NormalizedStack, adapter: LoraAdapter): LoraAdapterResource {
  const adapterSource = isLocalPath(adapter.path)
    ? { type: "local" as const, adapterName: adapter.name, adapterPath: adapter.path }
    : {
        type: "huggingface" as const,
        adapterName: adapter.name,
        repository: adapter.path,
        credentialsSecretRef: hubCredentials(stack, adapter),
      };
  return {
    apiVersion: LORA_ADAPTER_API_VERSION,
    kind: "LoraAdapter",
    metadata: {
      name: resourceName(stack, adapter),
      ...(stack.namespace === undefined ? {} : { namespace: stack.namespace }),
    },
    spec: {
      baseModel: stack.name,
      // Checked present by normalizeStackOptions for runtime loading; the controller sends it as a bearer token.
      ...(stack.apiKeySecret === undefined
        ? {}
        : { vllmApiKey: { secretName: stack.apiKeySecret.name, secretKey: stack.apiKeySecret.key } }),
      adapterSource,
      // No replica count: the controller then loads the adapter on every engine, wherever the router sends.
      loraAdapterDeploymentConfig: { algorithm: "default" },
    },
  };
}
