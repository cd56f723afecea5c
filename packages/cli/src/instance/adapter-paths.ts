import { closeSync, openSync, readSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import type { ServeOptions } from "@finetune-studio/serve-kit";
import { loraRankRefusal } from "@finetune-studio/serve-kit/internal";
import { UsageError } from "../shared/io.js";

/** What a LoRA adapter path names, read as vLLM reads it. */
export type AdapterSource =
  | { kind: "hub" }
  | { kind: "local"; path: string; rank: number }
  | { kind: "refused"; problem: string };

/** The weight files vLLM's LoRA loader reads, in its order (LoRAModel.from_local_checkpoint); else "doesn't contain tensors". */
const WEIGHT_FILES = ["adapter_model.safetensors", "adapter_model.bin", "adapter_model.pt"];
/** adapter_config.json is a few hundred bytes; a bigger one is not read. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * vLLM's rule for an adapter path (vllm/lora/utils.py, get_adapter_absolute_path): `~` is expanded; an
 * absolute path, or a relative one that exists in vLLM's working directory, is read locally; anything else
 * is a hub repository id. From a local directory it reads `adapter_config.json` (PEFTHelper.from_local_dir:
 * `r`, `lora_alpha` and `target_modules` are required) and the weights. A path that starts with `.` (no hub
 * id does) or `~/` is local as written. `cwd` is where a relative path is read: the caller's, made absolute
 * (and real) here, since vLLM would read it in its own working directory.
 */
export function readAdapterSource(path: string, env: NodeJS.ProcessEnv, cwd: string): AdapterSource {
  const home = env.HOME || homedir();
  const expanded = path === "~" || path.startsWith("~/") ? join(home, path.slice(1)) : path;
  const writtenLocal = isAbsolute(expanded) || path.startsWith(".");
  const absolute = resolve(cwd, expanded);
  const kind = kindOf(absolute);
  if (!writtenLocal && kind === "none") return { kind: "hub" }; // a hub id, as vLLM reads it
  if (kind === "none") return { kind: "refused", problem: "no such directory on this machine" };
  if (kind !== "directory")
    return { kind: "refused", problem: "is not a directory (an adapter is a directory)" };
  const config = readConfig(join(absolute, "adapter_config.json"));
  if (typeof config === "string") return { kind: "refused", problem: config };
  if (!WEIGHT_FILES.some((name) => kindOf(join(absolute, name)) === "file")) {
    return {
      kind: "refused",
      problem: `the directory holds no adapter weights (${WEIGHT_FILES.join(", ")}); vLLM says "doesn't contain tensors"`,
    };
  }
  return { kind: "local", path: realpathSync(absolute), rank: config.rank };
}

/** The adapter's rank from its adapter_config.json, or why vLLM could not read it. */
function readConfig(file: string): { rank: number } | string {
  if (kindOf(file) !== "file") {
    return "the directory has no adapter_config.json, which vLLM reads the adapter's rank and modules from";
  }
  let config: Record<string, unknown>;
  try {
    config = JSON.parse(readBounded(file)) as Record<string, unknown>;
  } catch {
    return "its adapter_config.json is not a JSON object of at most 1 MiB";
  }
  const missing = ["r", "lora_alpha", "target_modules"].filter((field) => config?.[field] === undefined);
  if (missing.length > 0) {
    return `its adapter_config.json lacks ${missing.join(", ")}, which vLLM requires ("Missing required configuration fields")`;
  }
  const rank = config.r;
  if (typeof rank !== "number" || !Number.isInteger(rank) || rank < 1) {
    return `its adapter_config.json's r (the rank) must be a whole number of 1 or more (given ${JSON.stringify(rank)})`;
  }
  return { rank };
}

function readBounded(file: string): string {
  const fd = openSync(file, "r");
  try {
    const buffer = Buffer.alloc(MAX_CONFIG_BYTES + 1);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    if (read > MAX_CONFIG_BYTES) throw new Error("too large");
    return buffer.subarray(0, read).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

/**
 * launch's check of its `--adapter`s before vLLM starts: vLLM reads them only after the base model's weights
 * are loaded, so a mistyped path, a directory without weights or a rank above `--max-lora-rank` would cost a
 * full load before it fails. A hub id is left to vLLM. Launch refuses, naming the value that serves the
 * adapter, rather than raising `--max-lora-rank` itself: the rank sizes the memory vLLM sets aside for
 * adapters (which `plan` counts), and launch runs what `command` prints.
 */
export function checkAdapterPaths(options: ServeOptions, env: NodeJS.ProcessEnv, helpFor: string): void {
  if (options.kind !== "lora") return;
  options.adapters.forEach((adapter, index) => {
    const source = readAdapterSource(adapter.path, env, process.cwd());
    const given = `(given ${JSON.stringify(adapter.path)}); vLLM would load the base model first, then fail`;
    if (source.kind === "refused") {
      throw new UsageError(`--adapter #${index + 1} path: ${source.problem} ${given}`, helpFor);
    }
    const refusal = source.kind === "local" ? loraRankRefusal(source.rank, options.maxLoraRank) : undefined;
    if (refusal !== undefined) {
      throw new UsageError(
        `--max-lora-rank: adapter ${adapter.name}'s (--adapter #${index + 1}) ${refusal} ${given}`,
        helpFor,
      );
    }
  });
}

function kindOf(path: string): "none" | "file" | "directory" | "other" {
  try {
    const stats = statSync(path);
    return stats.isDirectory() ? "directory" : stats.isFile() ? "file" : "other";
  } catch {
    return "none";
  }
}
