import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./cli-process.js";

/**
 * A LoRA adapter directory as vLLM reads it (its adapter_config.json, of rank `rank`, and a weights file),
 * under a fresh temporary directory, or under `parent` when given.
 */
export function adapterDir(name = "adapter", options: { rank?: number; parent?: string } = {}): string {
  const dir = join(options.parent ?? tempDir("adapter-"), name);
  mkdirSync(dir, { recursive: true });
  const config = { r: options.rank ?? 16, lora_alpha: 32, target_modules: ["q_proj", "v_proj"] };
  writeFileSync(join(dir, "adapter_config.json"), `${JSON.stringify(config)}\n`);
  // Not real tensors: vLLM's loader looks for the file before it reads it, and no test serves real weights.
  writeFileSync(join(dir, "adapter_model.safetensors"), "");
  return dir;
}
