import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./cli-process.js";

/** A LoRA adapter directory as vLLM reads it (its adapter_config.json), under a fresh temporary directory. */
export function adapterDir(name = "adapter"): string {
  const dir = join(tempDir("adapter-"), name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "adapter_config.json"), '{"r": 16, "target_modules": ["q_proj", "v_proj"]}\n');
  return dir;
}
