import type { PlanModel } from "@finetune-studio/serve-kit";
import { HubError, looksLikeHubRepo, readHubModel } from "./hub-reader.js";
import { hubToken } from "./hub-token.js";
import { isLocalModel, readLocalModel } from "./local-reader.js";

/** A local model directory (one with config.json), else a hub repository. */
export async function readPlanModel(
  model: string,
  env: NodeJS.ProcessEnv,
  revision?: string,
): Promise<PlanModel> {
  if (await isLocalModel(model)) return readLocalModel(model);
  if (!looksLikeHubRepo(model))
    throw new HubError(`${model}: neither a directory with config.json nor a hub repository (owner/name)`);
  return readHubModel(model, { env, token: await hubToken(env), ...(revision ? { revision } : {}) });
}
