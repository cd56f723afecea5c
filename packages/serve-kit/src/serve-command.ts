import { clientConfig, serverEnv } from "./internal/client-config.js";
import { type NormalizedServe, normalizeServeOptions } from "./internal/normalize.js";
import { vllmServeArguments } from "./internal/serve-arguments.js";
import { toShellText } from "./internal/shell.js";
import { serveWarnings } from "./internal/warnings.js";
import type { ServeCommand, ServeOptions } from "./serve-options.js";

/**
 * Builds the `vllm serve` command for a fine-tuned model: a full model, or a base model with LoRA adapters.
 * Pure: the same options always give the same command. Throws a `ServeConfigError` for bad input.
 *
 * @example
 * const { argv, env, client } = buildServeCommand({
 *   kind: "lora",
 *   baseModel: "meta-llama/Llama-3.1-8B-Instruct",
 *   adapters: [{ name: "support", path: "/models/support-lora" }],
 * });
 * // argv: vllm serve meta-llama/Llama-3.1-8B-Instruct --host 127.0.0.1 --port 8000 --enable-lora
 * //       --lora-modules support=/models/support-lora
 */
export function buildServeCommand(options: ServeOptions): ServeCommand {
  const normalized = normalizeServeOptions(options);
  return commandAround(["vllm", "serve", ...vllmServeArguments(normalized, normalized.host)], normalized);
}

/** A command that serves `normalized`: its argv, with what it needs from its environment and how to call it. */
export function commandAround(argv: string[], normalized: NormalizedServe): ServeCommand {
  return {
    argv,
    env: serverEnv(normalized),
    shell: toShellText(argv),
    client: clientConfig(normalized, normalized.host),
    listen: { host: normalized.host, port: normalized.port },
    warnings: serveWarnings(normalized),
  };
}
