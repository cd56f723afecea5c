import { engineArguments } from "../options/engine-options.js";
import { loraModuleArgument } from "./lora-modules.js";
import type { NormalizedServe } from "./normalize.js";

/**
 * The arguments that follow `vllm serve`. The model comes first: list-valued options such as
 * `--served-model-name` and `--lora-modules` take every word after them up to the next option, so a model
 * placed after one would be swallowed. `--lora-modules` appears once with all adapters, because a second
 * occurrence replaces the first. `listenHost` is separate because inside a container vLLM listens on all
 * interfaces while the published port decides who can reach it.
 */
export function vllmServeArguments(options: NormalizedServe, listenHost: string): string[] {
  const listen = ["--host", listenHost, "--port", String(options.port)];
  const name = options.servedModelName === undefined ? [] : ["--served-model-name", options.servedModelName];
  const lora =
    options.kind === "full"
      ? []
      : ["--enable-lora", "--lora-modules", ...options.adapters.map(loraModuleArgument)];
  const model = options.kind === "full" ? options.model : options.baseModel;
  return [model, ...listen, ...name, ...lora, ...engineArguments(options.engine), ...options.extraArgs];
}
