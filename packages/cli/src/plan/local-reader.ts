import { open, readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import type { PlanModel } from "@finetune-studio/serve-kit";
import { safetensorsHeaderBytes, safetensorsLmHeadBytes } from "@finetune-studio/serve-kit/internal";
import { errorText } from "../shared/messages.js";
import { headerLength } from "./safetensors-header.js";

const MAX_JSON_BYTES = 32 * 1024 * 1024;

/** True when `path` is a directory holding a config.json: a model on disk rather than a hub repository. */
export async function isLocalModel(path: string): Promise<boolean> {
  try {
    return (await stat(join(path, "config.json"))).isFile();
  } catch {
    return false;
  }
}

/** config.json and the weights' size (the safetensors index, else the files' headers) of a local model. */
export async function readLocalModel(dir: string): Promise<PlanModel> {
  const config = await readJson(join(dir, "config.json"));
  const indexPath = join(dir, "model.safetensors.index.json");
  try {
    if ((await stat(indexPath)).isFile()) return { config, safetensorsIndex: await readJson(indexPath) };
  } catch {
    // No index: a model in one or more files without one.
  }
  const files = (await readdir(dir)).filter((name) => name.endsWith(".safetensors")).sort();
  if (files.length === 0)
    throw new Error(`${dir}: holds neither model.safetensors.index.json nor *.safetensors files`);
  let weightsBytes = 0;
  // An lm_head.weight stored beside tied embeddings is one vLLM does not load: the plan takes it off.
  let lmHeadBytes = 0;
  for (const file of files) {
    const path = join(dir, file);
    const header = await safetensorsHeader(path);
    weightsBytes += safetensorsHeaderBytes(header, path);
    lmHeadBytes += safetensorsLmHeadBytes(header, path);
  }
  return { config, weightsBytes, lmHeadBytes };
}

async function readJson(path: string): Promise<unknown> {
  const info = await stat(path);
  if (info.size > MAX_JSON_BYTES) throw new Error(`${path}: larger than ${MAX_JSON_BYTES} bytes`);
  const text = await readFile(path, "utf8");
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${path}: not valid JSON (${errorText(error)})`);
  }
}

async function safetensorsHeader(path: string): Promise<unknown> {
  const handle = await open(path, "r");
  try {
    const first = new Uint8Array(8);
    await handle.read(first, 0, 8, 0);
    const length = headerLength(first, path);
    const header = new Uint8Array(length);
    await handle.read(header, 0, length, 8);
    return JSON.parse(new TextDecoder().decode(header));
  } finally {
    await handle.close();
  }
}
