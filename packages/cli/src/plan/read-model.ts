import { stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import {
  type PlanGpu,
  type PlanModel,
  type PlanSettings,
  planServe,
  ServeConfigError,
  type ServePlan,
} from "@finetune-studio/serve-kit";
import { errorText } from "../shared/messages.js";
import { hubOffline, readCachedHubModel } from "./hub-cache.js";
import { checkRevision, HubError, looksLikeHubRepo, readHubModel } from "./hub-reader.js";
import { hubToken } from "./hub-token.js";
import { readLocalModel } from "./local-reader.js";

/** The model's files could not be read: a local path that is not a model, or the hub could not give them. */
export class ModelReadError extends Error {
  override readonly name = "ModelReadError";
}

/**
 * A local directory, else a hub repository. An argument that starts with ".", "/" or "~", or whose first path
 * component exists here, is a local path: it is read here or refused with what is wrong with it, never asked
 * of the hub (which would answer about another model, or not at all).
 */
export async function readPlanModel(
  model: string,
  env: NodeJS.ProcessEnv,
  revision?: string,
): Promise<{ model: PlanModel; readFrom?: string }> {
  if (await namesLocalPath(model)) return { model: await readLocalPath(model) };
  if (!looksLikeHubRepo(model))
    throw new ModelReadError(
      `${model}: neither a local directory nor a hub repository (owner/name); a local path may start with ./`,
    );
  try {
    return await readHubRepository(model, env, checkRevision(revision));
  } catch (error) {
    throw error instanceof HubError ? new ModelReadError(error.message) : error;
  }
}

/**
 * A hub repository: from the hub's cache first, where vLLM would load it from too (hub-cache.ts), then from
 * the hub; with HF_HUB_OFFLINE set, as vLLM and huggingface_hub do, from the cache only.
 */
async function readHubRepository(
  repo: string,
  env: NodeJS.ProcessEnv,
  revision: string,
): Promise<{ model: PlanModel; readFrom?: string }> {
  const cached = await readCachedHubModel(repo, revision, env);
  if ("model" in cached) return { model: cached.model, readFrom: `the hub's cache (${cached.snapshot})` };
  if (hubOffline(env))
    throw new ModelReadError(
      `${repo}@${revision}: not in the hub's cache, and HF_HUB_OFFLINE is set, so the hub is not asked (${cached.missing}); download it first (huggingface-cli download ${repo} config.json model.safetensors.index.json), or unset HF_HUB_OFFLINE`,
    );
  return { model: await readHubModel(repo, { env, token: await hubToken(env), revision }) };
}

/**
 * Reads the model and plans it, with vLLM's environment (VLLM_ALLOW_LONG_MAX_MODEL_LEN). Returns the error when
 * the model's files cannot be read or are not a model's (config.json, the safetensors index); a bad setting
 * still throws (the caller's bad input).
 */
export async function planModel(
  model: string,
  gpu: PlanGpu,
  settings: PlanSettings,
  env: NodeJS.ProcessEnv,
  revision?: string,
): Promise<ServePlan | ModelReadError> {
  try {
    const read = await readPlanModel(model, env, revision);
    const plan = planServe(read.model, gpu, settings, env);
    return read.readFrom ? { ...plan, notes: [`read from ${read.readFrom}`, ...plan.notes] } : plan;
  } catch (error) {
    if (error instanceof ModelReadError) return error;
    if (error instanceof ServeConfigError && MODEL_FILE_FIELD.test(error.field))
      return new ModelReadError(`${model}: ${error.field}: ${error.rule} (given ${error.given})`);
    throw error;
  }
}

/** The fields planServe names for the model's own files, as opposed to the settings. */
const MODEL_FILE_FIELD = /^(config\.json|model\.safetensors|weightsBytes|model$)/;

/** True when the argument can only mean a path on this machine. */
export async function namesLocalPath(model: string): Promise<boolean> {
  if (/^[./~]/.test(model)) return true;
  const [first] = model.split("/");
  return first !== undefined && first !== "" && (await exists(first));
}

async function readLocalPath(model: string): Promise<PlanModel> {
  const path = model === "~" || model.startsWith("~/") ? join(homedir(), model.slice(1)) : model;
  const info = await stat(path).catch(() => undefined);
  if (!info)
    throw new ModelReadError(`${model}: no such file or directory here (a local path: the hub is not asked)`);
  if (!info.isDirectory()) throw new ModelReadError(`${model}: not a directory; give the model's directory`);
  if (!(await exists(join(path, "config.json"))))
    throw new ModelReadError(`${model}: a directory without config.json, so not a model's files`);
  try {
    return await readLocalModel(path);
  } catch (error) {
    throw new ModelReadError(errorText(error));
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
