import { readFile, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import type { PlanModel } from "@finetune-studio/serve-kit";
import { errorText } from "../shared/messages.js";
import { readLocalModel } from "./local-reader.js";

// The hub's cache on this machine, laid out and located as huggingface_hub lays it out (constants.py,
// file_download.py), which is where vLLM finds a model it downloaded:
//   $HF_HUB_CACHE (else $HUGGINGFACE_HUB_CACHE, else $HF_HOME/hub, else ${XDG_CACHE_HOME:-~/.cache}/huggingface/hub)
//     models--<org>--<name>/refs/<branch or tag>   the commit it points at
//     models--<org>--<name>/snapshots/<commit>/    config.json, model.safetensors.index.json, *.safetensors
// HF_HUB_OFFLINE (or TRANSFORMERS_OFFLINE) is on when it reads 1, ON, YES or TRUE in any case (_is_true).

const COMMIT = /^[0-9a-f]{40}$/;
const MAX_REF_BYTES = 1024;

/** The hub cache's directory, as huggingface_hub's HF_HUB_CACHE resolves it. */
export function hubCacheDir(env: NodeJS.ProcessEnv): string {
  const home = expandHome(
    env.HF_HOME || join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "huggingface"),
  );
  return expandHome(env.HF_HUB_CACHE || env.HUGGINGFACE_HUB_CACHE || join(home, "hub"));
}

function expandHome(path: string): string {
  return path === "~" || path.startsWith("~/") ? join(homedir(), path.slice(1)) : path;
}

/** huggingface_hub's HF_HUB_OFFLINE: the hub is never asked. */
export function hubOffline(env: NodeJS.ProcessEnv): boolean {
  const value = env.HF_HUB_OFFLINE || env.TRANSFORMERS_OFFLINE;
  return value !== undefined && ["1", "ON", "YES", "TRUE"].includes(value.toUpperCase());
}

/** The model from the cache, with the snapshot it was read from; or why the cache cannot give it. */
export type CachedModel = { model: PlanModel; snapshot: string } | { missing: string };

/**
 * Reads `repo` at `revision` (a branch, tag or commit, already checked) from the hub's cache: config.json and
 * the weights' size (the safetensors index, else the one model.safetensors's header). A snapshot with part of
 * a sharded checkpoint and no index is not enough: its size would be wrong.
 */
export async function readCachedHubModel(
  repo: string,
  revision: string,
  env: NodeJS.ProcessEnv,
): Promise<CachedModel> {
  const repoDir = join(hubCacheDir(env), `models--${repo.replace("/", "--")}`);
  const commit = COMMIT.test(revision) ? revision : await readRef(join(repoDir, "refs", revision));
  if (commit === undefined) return { missing: `${repoDir} has no refs/${revision}` };
  const snapshot = join(repoDir, "snapshots", commit);
  if (!(await isFile(join(snapshot, "config.json")))) return { missing: `${snapshot} has no config.json` };
  const index = await isFile(join(snapshot, "model.safetensors.index.json"));
  if (!index && !(await isFile(join(snapshot, "model.safetensors"))))
    return { missing: `${snapshot} has neither model.safetensors.index.json nor model.safetensors` };
  try {
    return { model: await readLocalModel(snapshot), snapshot };
  } catch (error) {
    return { missing: `${snapshot}: ${errorText(error)}` };
  }
}

async function readRef(path: string): Promise<string | undefined> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile() || info.size > MAX_REF_BYTES) return undefined;
  const commit = (await readFile(path, "utf8")).trim();
  return COMMIT.test(commit) ? commit : undefined;
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isFile(),
    () => false,
  );
}
