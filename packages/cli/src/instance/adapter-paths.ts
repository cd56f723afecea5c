import { statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import type { ServeOptions } from "@finetune-studio/serve-kit";
import { UsageError } from "../shared/io.js";

/**
 * vLLM's rule for an adapter path (vllm/lora/utils.py, get_adapter_absolute_path): `~` is expanded; an
 * absolute path, or a relative one that exists here, is read locally; anything else is a hub repository id.
 * It then reads `adapter_config.json` from that directory (PEFTHelper.from_local_dir). It does all this only
 * after the base model's weights are loaded, so a mistyped local path costs a full load: launch checks it
 * first. A hub id is left to vLLM. A path that starts with `.` (no hub id does) or `~/` is local as written.
 */
export function checkAdapterPaths(options: ServeOptions, env: NodeJS.ProcessEnv, helpFor: string): void {
  if (options.kind !== "lora") return;
  options.adapters.forEach((adapter, index) => {
    const problem = localAdapterProblem(adapter.path, env);
    if (problem !== undefined) {
      throw new UsageError(
        `--adapter #${index + 1} path: ${problem} (given ${JSON.stringify(adapter.path)}); vLLM would load the base model first, then fail`,
        helpFor,
      );
    }
  });
}

/** Why a local adapter path cannot be served; undefined when it can, or when the path is a hub id. */
function localAdapterProblem(path: string, env: NodeJS.ProcessEnv): string | undefined {
  const home = env.HOME || homedir();
  const expanded = path === "~" || path.startsWith("~/") ? join(home, path.slice(1)) : path;
  const writtenLocal = isAbsolute(expanded) || path.startsWith(".");
  const kind = kindOf(resolve(expanded));
  if (!writtenLocal && kind === "none") return undefined; // a hub id, as vLLM reads it
  if (kind === "none") return "no such directory on this machine";
  if (kind !== "directory") return "is not a directory (an adapter is a directory)";
  if (kindOf(join(resolve(expanded), "adapter_config.json")) !== "file") {
    return "the directory has no adapter_config.json, which vLLM reads the adapter's rank and modules from";
  }
  return undefined;
}

function kindOf(path: string): "none" | "file" | "directory" | "other" {
  try {
    const stats = statSync(path);
    return stats.isDirectory() ? "directory" : stats.isFile() ? "file" : "other";
  } catch {
    return "none";
  }
}
