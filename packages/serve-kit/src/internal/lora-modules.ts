import type { LoraAdapter } from "../serve-options.js";

/**
 * One value of `--lora-modules`. vLLM reads `name=path` only when the value holds a `=` and no `,`, and
 * splits it on `=`; anything else is parsed as JSON. So a path holding `=` or `,` must go as a JSON object.
 */
export function loraModuleArgument(adapter: LoraAdapter): string {
  if (adapter.path.includes("=") || adapter.path.includes(",")) {
    return JSON.stringify({ name: adapter.name, path: adapter.path });
  }
  return `${adapter.name}=${adapter.path}`;
}
