import { isLoopbackHost, isWildcardHost } from "@finetune-studio/internal";
import type { NormalizedServe } from "./normalize.js";

/** Things that work but are probably not what the user wants. */
export function serveWarnings(options: NormalizedServe): string[] {
  const warnings: string[] = [];
  const { host, port } = options;
  if (!isLoopbackHost(host)) {
    const where = isWildcardHost(host) ? `on every interface (${host})` : `on ${host}`;
    if (options.apiKey === undefined) {
      warnings.push(
        `the server listens ${where} with no API key: anyone who can reach port ${port} can use the model; set an API key`,
      );
    } else {
      warnings.push(
        `the server listens ${where}: VLLM_API_KEY guards only the /v1 routes, while others such as /invocations and /metrics stay open; keep port ${port} behind a firewall or proxy`,
      );
    }
  }
  const references =
    options.kind === "full"
      ? [["model", options.model] as const]
      : [
          ["baseModel", options.baseModel] as const,
          ...options.adapters.map((a, i) => [`adapters[${i}].path`, a.path] as const),
        ];
  for (const [field, reference] of references) {
    if (reference.startsWith("~")) {
      warnings.push(`${field} starts with '~', which no shell expands here: vLLM will look for it as given`);
    }
  }
  return warnings;
}
