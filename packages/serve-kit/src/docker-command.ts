import { isIpAddress } from "@finetune-studio/internal";
import { hostPort } from "./internal/hosts.js";
import { type NormalizedServe, normalizeServeOptions } from "./internal/normalize.js";
import { vllmServeArguments } from "./internal/serve-arguments.js";
import { hasControlCharacter, hasWhitespace } from "./internal/text.js";
import { checkKnownKeys, checkObject, refuse } from "./internal/validate.js";
import { commandAround } from "./serve-command.js";
import type { ServeCommand, ServeOptions } from "./serve-options.js";

export const DEFAULT_VLLM_IMAGE = "vllm/vllm-openai:latest";
/** A named volume, so the default stays pure; pass your own cache directory to reuse downloaded weights. */
export const DEFAULT_HF_CACHE_VOLUME = "huggingface-cache";
/** Where the image (running as root) keeps the Hugging Face cache. */
const CONTAINER_HF_CACHE = "/root/.cache/huggingface";

export interface DockerOptions {
  /** The image, `vllm/vllm-openai:<tag>` by default `vllm/vllm-openai:latest`; pin a tag in production. */
  image?: string;
  /** An absolute host directory or a volume name mounted as the Hugging Face cache. */
  hfCacheDir?: string;
}

const VOLUME_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/**
 * Builds the `docker run` command that serves the same model with vLLM's official image. The image's
 * entrypoint is already `vllm serve`, so the arguments after the image start at the model. Inside the
 * container vLLM listens on all interfaces; the published port binds to `host` (127.0.0.1 by default).
 * `HF_TOKEN` and `VLLM_API_KEY` are passed by name, so docker reads them from its environment.
 */
export function buildDockerCommand(options: ServeOptions, docker: DockerOptions = {}): ServeCommand {
  const normalized = normalizeServeOptions(options);
  checkKnownKeys(checkObject(docker, "docker"), ["image", "hfCacheDir"], "the docker options");
  const image = checkImage(docker.image ?? DEFAULT_VLLM_IMAGE);
  const cache = checkCacheDir(docker.hfCacheDir ?? DEFAULT_HF_CACHE_VOLUME);
  if (!isIpAddress(normalized.host)) {
    refuse("host", "must be an IP address for docker -p", normalized.host);
  }
  const publish = `${hostPort(normalized.host, normalized.port)}:${normalized.port}`;
  const mounts = localPathMounts(normalized).flatMap((path) => ["-v", `${path}:${path}:ro`]);
  const env = ["--env", "HF_TOKEN", ...(normalized.apiKey === undefined ? [] : ["--env", "VLLM_API_KEY"])];
  const argv = [
    "docker",
    "run",
    "--rm",
    "--gpus",
    "all",
    // PyTorch shares tensors between processes through shared memory, which docker limits to 64 MB.
    "--ipc=host",
    "-p",
    publish,
    "-v",
    `${cache}:${CONTAINER_HF_CACHE}`,
    ...mounts,
    ...env,
    image,
    ...vllmServeArguments(normalized, "0.0.0.0"),
  ];
  return commandAround(argv, normalized);
}

function checkImage(image: unknown): string {
  if (typeof image !== "string" || image === "" || image.startsWith("-") || hasWhitespace(image)) {
    refuse("docker.image", "must be an image reference such as vllm/vllm-openai:<tag>", image);
  }
  return image;
}

function checkCacheDir(dir: unknown): string {
  const ok =
    typeof dir === "string" &&
    !hasControlCharacter(dir) &&
    !dir.includes(":") &&
    (dir.startsWith("/") || VOLUME_NAME.test(dir));
  if (!ok) {
    refuse("docker.hfCacheDir", "must be an absolute directory or a volume name, without ':'", dir);
  }
  checkMountSource(dir, "docker.hfCacheDir");
  return dir;
}

// Directories too wide to hand a root container: the host's root (read-write for the cache) and a whole home
// (its keys and tokens). `/home/<user>` and `/Users/<user>` are recognised by shape, since the builders do
// not know who runs them; the trailing slashes and `.` segments docker would ignore are ignored too.
const TOO_WIDE = /^\/(?:(?:root|home|Users)(?:\/[^/]+)?)?$/;

function checkMountSource(path: string, field: string): void {
  const normal = path.replace(/\/(?:\.?\/)+/g, "/").replace(/\/\.?$/, "") || "/";
  if (TOO_WIDE.test(normal)) {
    refuse(
      field,
      normal === "/"
        ? "must not be / for docker: the container runs as root and would get the host's whole file system"
        : "must not be a whole home directory for docker: the container runs as root and would get its keys and tokens; mount the directory that holds the files",
      path,
    );
  }
}

/**
 * Absolute local paths are mounted read-only at the same place, so the arguments stay the same inside the
 * container. Anything else is taken for a hub repository, except paths that are clearly relative.
 */
function localPathMounts(options: NormalizedServe): string[] {
  const references: [string, string][] =
    options.kind === "full"
      ? [["model", options.model]]
      : [
          ["baseModel", options.baseModel],
          ...options.adapters.map((adapter, i): [string, string] => [`adapters[${i}].path`, adapter.path]),
        ];
  const mounts: string[] = [];
  for (const [field, reference] of references) {
    if (/^(~|\.\.?(\/|$))/.test(reference)) {
      refuse(
        field,
        "must be an absolute path or a hub repository for docker: a relative path does not exist in the container",
        reference,
      );
    }
    if (!reference.startsWith("/")) continue;
    if (reference.includes(":")) {
      refuse(field, "must not hold ':' to be mounted with docker -v", reference);
    }
    checkMountSource(reference, field);
    if (!mounts.includes(reference)) mounts.push(reference);
  }
  return mounts;
}
