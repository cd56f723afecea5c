import type { ParseArgsConfig } from "node:util";
import type {
  SecretKeyReference,
  ServeOptions,
  StackCommandFiles,
  StackOptions,
  StackStorage,
} from "@finetune-studio/serve-kit";
import { UsageError } from "../shared/io.js";
import { ENGINE_FLAGS, numberOrRaw, parseServeArgs } from "../shared/serve-args.js";

// The flags of `studio-serve stack`: the serving intent as `command` takes it (where engines listen is the
// chart's business, so no --host or --port), and how to run it on Kubernetes.
export const STACK_OPTIONS = {
  "served-model-name": { type: "string" },
  adapter: { type: "string", multiple: true },
  ...ENGINE_FLAGS,
  "api-key-env": { type: "string" },
  "api-key-file": { type: "string" },
  "api-key-secret": { type: "string" },
  "hf-token-secret": { type: "string" },
  "hf-token-env": { type: "string" },
  "hf-token-file": { type: "string" },
  name: { type: "string" },
  release: { type: "string" },
  namespace: { type: "string" },
  image: { type: "string" },
  replicas: { type: "string" },
  "gpus-per-replica": { type: "string" },
  cpu: { type: "string" },
  memory: { type: "string" },
  // Kept from before the engine options: the same as --no-enable-prefix-caching.
  "no-prefix-caching": { type: "boolean" },
  "storage-pvc": { type: "string" },
  "storage-class": { type: "string" },
  "access-mode": { type: "string" },
  "storage-claim": { type: "string" },
  "storage-host-path": { type: "string" },
  "adapter-loading": { type: "string" },
  routing: { type: "string" },
  "session-header": { type: "string" },
  "runtime-class": { type: "string" },
  "startup-timeout": { type: "string" },
  out: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const satisfies ParseArgsConfig["options"];

export interface ParsedStackArgs {
  kind: "full" | "lora";
  config: ServeOptions;
  options: StackOptions;
  files: StackCommandFiles;
  out: string | undefined;
}

/** The builders' field names, as the flags a user typed (the serve fields are named by `cliField`). */
export const STACK_FIELD_FLAGS: Readonly<Record<string, string>> = {
  name: "--name",
  release: "--release",
  namespace: "--namespace",
  image: "--image",
  replicas: "--replicas",
  gpusPerReplica: "--gpus-per-replica",
  cpu: "--cpu",
  memory: "--memory",
  maxModelLen: "--max-model-len",
  dtype: "--dtype",
  "apiKeySecret.name": "--api-key-secret name",
  "apiKeySecret.key": "--api-key-secret key",
  apiKeySecret: "--api-key-secret",
  "hfTokenSecret.name": "--hf-token-secret name",
  "hfTokenSecret.key": "--hf-token-secret key",
  hfTokenSecret: "--hf-token-secret",
  "storage.size": "--storage-pvc",
  "storage.storageClass": "--storage-class",
  "storage.accessMode": "--access-mode",
  "storage.claimName": "--storage-claim name",
  "storage.mountPath": "--storage-claim mount path",
  "storage.path": "--storage-host-path",
  adapterLoading: "--adapter-loading",
  routing: "--routing",
  sessionHeader: "--session-header",
  runtimeClassName: "--runtime-class",
  startupTimeoutSeconds: "--startup-timeout",
  "files.apiKeyFrom.file": "--api-key-file",
  "files.apiKeyFrom.env": "--api-key-env",
  "files.hfTokenFrom.file": "--hf-token-file",
  "files.hfTokenFrom.env": "--hf-token-env",
  "files.valuesFile": "--out",
  "files.adaptersFile": "--out",
};

/** Parses `<full|lora> <model> [flags] [-- vllm args]` for `stack <what>`, or asks for the help. */
export function parseStackArgs(what: string, args: readonly string[]): ParsedStackArgs | "help" {
  const subcommand = `stack ${what}`;
  const parsed = parseServeArgs(subcommand, args, STACK_OPTIONS);
  if (parsed === "help") return "help";
  const { values, kind } = parsed;
  const helpFor = `${subcommand}`;
  const text = (flag: string) => values[flag] as string | undefined;

  const apiKeyEnv = parsed.apiKeyEnv;
  const apiKeyFile = text("api-key-file");
  if (apiKeyEnv !== undefined && apiKeyFile !== undefined) {
    throw new UsageError("--api-key-env and --api-key-file: give one place to read the key from", helpFor);
  }
  const hfEnv = text("hf-token-env");
  const hfFile = text("hf-token-file");
  if (hfEnv !== undefined && hfFile !== undefined) {
    throw new UsageError(
      "--hf-token-env and --hf-token-file: give one place to read the token from",
      helpFor,
    );
  }
  if ((hfEnv !== undefined || hfFile !== undefined) && text("hf-token-secret") === undefined) {
    throw new UsageError("--hf-token-env and --hf-token-file: go with --hf-token-secret NAME[:KEY]", helpFor);
  }
  // Any of the key flags asks for a key; the engines read it from a Secret, never from the values.
  const wantsKey =
    apiKeyEnv !== undefined || apiKeyFile !== undefined || text("api-key-secret") !== undefined;
  const apiKeySecret = wantsKey
    ? secretReference(text("api-key-secret") ?? "vllm-api-key", "VLLM_API_KEY", "--api-key-secret", helpFor)
    : undefined;
  const hfSecret = text("hf-token-secret");

  const options: StackOptions = {
    ...defined("name", text("name")),
    ...defined("release", text("release")),
    ...defined("namespace", text("namespace")),
    ...defined("image", text("image")),
    ...defined("replicas", numberOrRaw(text("replicas"))),
    ...defined("gpusPerReplica", numberOrRaw(text("gpus-per-replica"))),
    ...defined("cpu", numberOrRaw(text("cpu"))),
    ...defined("memory", text("memory")),
    ...(values["no-prefix-caching"] === true ? { prefixCaching: false } : {}),
    ...(apiKeySecret === undefined ? {} : { apiKeySecret }),
    ...(hfSecret === undefined
      ? {}
      : { hfTokenSecret: secretReference(hfSecret, "HF_TOKEN", "--hf-token-secret", helpFor) }),
    ...defined("storage", storage(values, helpFor)),
    ...defined("adapterLoading", text("adapter-loading")),
    ...defined("routing", text("routing")),
    ...defined("sessionHeader", text("session-header")),
    ...defined("runtimeClassName", text("runtime-class")),
    ...defined("startupTimeoutSeconds", numberOrRaw(text("startup-timeout"))),
  };
  // The key's value is never read here: only the shell that runs `kubectl create secret` reads it.
  const config: ServeOptions = parsed.options;
  const files: StackCommandFiles = {
    ...(apiKeyFile !== undefined ? { apiKeyFrom: { file: apiKeyFile } } : {}),
    ...(apiKeyEnv !== undefined ? { apiKeyFrom: { env: apiKeyEnv } } : {}),
    ...(hfFile !== undefined ? { hfTokenFrom: { file: hfFile } } : {}),
    ...(hfEnv !== undefined ? { hfTokenFrom: { env: hfEnv } } : {}),
  };
  return { kind, config, options, files, out: text("out") };
}

/** `NAME[:KEY]`: a Secret and the key in it. */
function secretReference(
  text: string,
  defaultKey: string,
  flag: string,
  helpFor: string,
): SecretKeyReference {
  const [name = "", key = defaultKey, ...rest] = text.split(":");
  if (rest.length > 0 || name === "" || key === "") {
    throw new UsageError(`${flag}: must be NAME or NAME:KEY (given ${JSON.stringify(text)})`, helpFor);
  }
  return { name, key };
}

function storage(values: Record<string, unknown>, helpFor: string): StackStorage | undefined {
  const pvc = values["storage-pvc"] as string | undefined;
  const claim = values["storage-claim"] as string | undefined;
  const hostPath = values["storage-host-path"] as string | undefined;
  const given = [pvc, claim, hostPath].filter((value) => value !== undefined);
  if (given.length > 1) {
    throw new UsageError(
      "--storage-pvc, --storage-claim and --storage-host-path: give one kind of storage",
      helpFor,
    );
  }
  for (const flag of ["storage-class", "access-mode"]) {
    if (values[flag] !== undefined && pvc === undefined)
      throw new UsageError(`--${flag}: goes with --storage-pvc`, helpFor);
  }
  if (pvc !== undefined) {
    return {
      kind: "pvc",
      size: pvc,
      ...defined("storageClass", values["storage-class"]),
      ...defined("accessMode", values["access-mode"]),
    };
  }
  if (claim !== undefined) {
    // The mount path is absolute, so the claim name ends at the first ':'.
    const at = claim.indexOf(":");
    if (at <= 0)
      throw new UsageError(
        `--storage-claim: must be NAME:/mount/path (given ${JSON.stringify(claim)})`,
        helpFor,
      );
    return { kind: "claim", claimName: claim.slice(0, at), mountPath: claim.slice(at + 1) };
  }
  return hostPath === undefined ? undefined : { kind: "hostPath", path: hostPath };
}

/** `{ [key]: value }` when given; typed loosely so the builder, which checks every value, names what is wrong. */
function defined<K extends string>(key: K, value: unknown): Partial<Record<K, never>> {
  return (value === undefined ? {} : { [key]: value }) as Partial<Record<K, never>>;
}
