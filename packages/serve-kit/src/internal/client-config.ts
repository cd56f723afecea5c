import type { ServeClientConfig } from "../serve-options.js";
import { hostForUrl } from "./hosts.js";
import type { NormalizedServe } from "./normalize.js";

/** The dummy key OpenAI-style clients send to a server that needs none (they refuse an empty key). */
export const DUMMY_API_KEY = "EMPTY";

/** The name clients send in `model`: the served name, the model path, or the first adapter's name. */
export function servedModelName(options: NormalizedServe): string {
  if (options.kind === "full") return options.servedModelName ?? options.model;
  // Normalized LoRA options always hold at least one adapter.
  return options.adapters[0]?.name ?? options.baseModel;
}

export function clientConfig(options: NormalizedServe, host: string): ServeClientConfig {
  const rootURL = `http://${hostForUrl(host)}:${options.port}`;
  return {
    baseURL: `${rootURL}/v1`,
    rootURL,
    model: servedModelName(options),
    apiKey: options.apiKey ?? DUMMY_API_KEY,
  };
}

export function serverEnv(options: NormalizedServe): Record<string, string> {
  return options.apiKey === undefined ? {} : { VLLM_API_KEY: options.apiKey };
}
