import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { describeValue } from "@finetune-studio/internal";
import { ServeConfigError, type ServeOptions } from "@finetune-studio/serve-kit";

/**
 * The serve's model, base and adapter paths as docker needs them. serve-kit mounts an absolute path read-only
 * at the same place and takes `models/x` for a hub repository (it has no file system to tell), so a relative
 * path that exists here is made absolute. One that reads as local (`./…`, `../…`, or its first directory is
 * here) but does not exist is refused; anything else, a hub id such as `org/name`, is left as it is.
 */
export function absoluteLocalPaths(options: ServeOptions): ServeOptions {
  if (options.kind === "full") return { ...options, model: absoluteIfLocal(options.model, "model") };
  return {
    ...options,
    baseModel: absoluteIfLocal(options.baseModel, "baseModel"),
    adapters: options.adapters.map((adapter, i) => ({
      ...adapter,
      path: absoluteIfLocal(adapter.path, `adapters[${i}].path`),
    })),
  };
}

function absoluteIfLocal(reference: string, field: string): string {
  // Absolute and `~` paths are serve-kit's to mount or refuse.
  if (reference.startsWith("/") || reference.startsWith("~")) return reference;
  if (existsSync(reference)) return resolve(reference);
  const firstDirectory = reference.split("/")[0] ?? "";
  const why = /^\.\.?(\/|$)/.test(reference)
    ? "it starts with . so it is local"
    : reference.includes("/") && statSync(firstDirectory, { throwIfNoEntry: false })?.isDirectory()
      ? `${firstDirectory}/ is a directory here, so it is no hub repository`
      : undefined;
  if (why !== undefined) {
    throw new ServeConfigError(
      field,
      `must exist here to be mounted for docker: ${why}`,
      describeValue(reference),
    );
  }
  return reference;
}
