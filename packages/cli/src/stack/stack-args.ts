import type {
  SecretKeyReference,
  ServeOptions,
  StackCommandFiles,
  StackOptions,
  StackStorage,
} from "@finetune-studio/serve-kit";
import { OUT_FLAG } from "../shared/common-flags.js";
import { ENGINE_FLAGS } from "../shared/engine-flags.js";
import { describedAs, type Flag, switchFlag, textFlag } from "../shared/flags.js";
import { UsageError } from "../shared/io.js";
import { numberOrRaw } from "../shared/raw-values.js";
import { ROUTING_FLAG, SESSION_HEADER_FLAG } from "../shared/routing-flags.js";
import { ADAPTER_FLAG, parseServeArgs, SERVE_KEY_FLAG, SERVED_NAME_FLAG } from "../shared/serve-args.js";
import { quoted } from "../shared/values.js";

// The flags of `studio-serve stack`: the serving intent as `command` takes it (where engines listen is the
// chart's business, so no --host or --port), and how to run it on Kubernetes. The builders check the values.

/** A flag whose value goes to the builders' `field` as typed: their refusals name the flag. */
const text = (name: string, valueName: string, field: string | undefined, help: string) =>
  textFlag(name, { valueName, help, ...(field === undefined ? {} : { field }) });

export const STACK_SERVE_FLAGS: readonly Flag[] = [
  describedAs(SERVED_NAME_FLAG, 'the name clients send in "model" (lora: for the base model)'),
  describedAs(ADAPTER_FLAG, "lora: an adapter (hub repository, or a path under the storage); repeat"),
];
export const ENGINE_POD_FLAGS: readonly Flag[] = [
  text("name", "N", "name", "the model's name in the chart (default: from the served name or base)"),
  text("release", "R", "release", "the Helm release (default vllm)"),
  text("namespace", "NS", "namespace", "install there"),
  text("image", "repo:tag", "image", "the vLLM image (default vllm/vllm-openai:latest; pin a tag)"),
  text("replicas", "N", "replicas", "engine pods (default 1)"),
  text(
    "gpus-per-replica",
    "G",
    "gpusPerReplica",
    "GPUs per pod (default 1; more shards the model across them)",
  ),
  text("cpu", "N", "cpu", "CPUs requested per pod (default 8)"),
  text("memory", "Q", "memory", "memory requested per pod (default 32Gi)"),
  text("runtime-class", "C", "runtimeClassName", "the pods' runtime class"),
  // Kept from before the engine options: the same as --no-enable-prefix-caching.
  switchFlag("no-prefix-caching", "the same as --no-enable-prefix-caching"),
  text(
    "startup-timeout",
    "S",
    "startupTimeoutSeconds",
    "how long an engine may take to load before it is restarted (default 1800)",
  ),
];
export const STORAGE_FLAGS: readonly Flag[] = [
  text(
    "storage-pvc",
    "SIZE",
    "storage.size",
    "a claim the chart makes per model, at /data (also the Hugging Face cache)",
  ),
  text("storage-class", "C", "storage.storageClass", "with --storage-pvc: its storage class"),
  text(
    "access-mode",
    "ReadWriteOnce|ReadWriteMany",
    "storage.accessMode",
    "with --storage-pvc: its access mode",
  ),
  text("storage-claim", "NAME:/dir", undefined, "an existing claim holding the weights, read-only at /dir"),
  text(
    "storage-host-path",
    "/dir",
    "storage.path",
    "a directory on every GPU node, read-only at the same path",
  ),
];
export const SECRET_FLAGS: readonly Flag[] = [
  text(
    "api-key-secret",
    "NAME[:KEY]",
    "apiKeySecret",
    "the Secret clients' key lives in (default vllm-api-key:VLLM_API_KEY)",
  ),
  {
    ...describedAs(SERVE_KEY_FLAG, "where kubectl create secret reads the key (default VLLM_API_KEY)"),
    field: "files.apiKeyFrom.env",
  },
  text("api-key-file", "PATH", "files.apiKeyFrom.file", "or the file it reads the key from"),
  text(
    "hf-token-secret",
    "NAME[:KEY]",
    "hfTokenSecret",
    "a Hugging Face token for gated repositories (key default HF_TOKEN)",
  ),
  text(
    "hf-token-env",
    "NAME",
    "files.hfTokenFrom.env",
    "where kubectl create secret reads the token (default HF_TOKEN)",
  ),
  text("hf-token-file", "PATH", "files.hfTokenFrom.file", "or the file it reads the token from"),
];
export const ROUTING_FLAGS: readonly Flag[] = [
  text(
    "adapter-loading",
    "static|runtime",
    "adapterLoading",
    "static (default): --lora-modules on every engine; runtime: the\nchart's LoRA controller loads LoraAdapter resources (needs a key)",
  ),
  describedAs(
    ROUTING_FLAG,
    "how the router picks an engine, in launch's words (default least-busy:\nthe router rotates, roundrobin; session: its session logic; prefix: its\nprefixaware logic)",
  ),
  describedAs(
    SESSION_HEADER_FLAG,
    "with session routing: the header that names a session\n(default x-session-id)",
  ),
];
export const STACK_OUT_FLAG = describedAs(
  OUT_FLAG,
  "write DIR/values.yaml (or DIR/adapters.yaml) and print the commands;\nwithout it the YAML goes to stdout and the commands to stderr",
);

export const STACK_FLAGS: readonly Flag[] = [
  ...STACK_SERVE_FLAGS,
  ...ENGINE_FLAGS,
  ...ENGINE_POD_FLAGS,
  ...STORAGE_FLAGS,
  ...SECRET_FLAGS,
  ...ROUTING_FLAGS,
  STACK_OUT_FLAG,
];

export interface ParsedStackArgs {
  kind: "full" | "lora";
  config: ServeOptions;
  options: StackOptions;
  files: StackCommandFiles;
  out: string | undefined;
}

/**
 * The builders' fields that no one flag's declaration names: a part of a flag's value, or one of the two
 * files --out sets. (Every other field is named by the flag whose declaration sets it.)
 */
export const STACK_FIELD_FLAGS: Readonly<Record<string, string>> = {
  "storage.claimName": "--storage-claim name",
  "storage.mountPath": "--storage-claim mount path",
  "files.valuesFile": "--out",
  "files.adaptersFile": "--out",
};

/** Parses `<full|lora> <model> [flags] [-- vllm args]` for `stack <what>`, or asks for the help. */
export function parseStackArgs(what: string, args: readonly string[]): ParsedStackArgs | "help" {
  const subcommand = `stack ${what}`;
  const parsed = parseServeArgs(subcommand, args, STACK_FLAGS);
  if (parsed === "help") return "help";
  const { values, kind } = parsed;
  const helpFor = `${subcommand}`;
  const given = (flag: string) => values[flag] as string | undefined;

  const apiKeyEnv = parsed.apiKeyEnv;
  const apiKeyFile = given("api-key-file");
  if (apiKeyEnv !== undefined && apiKeyFile !== undefined) {
    throw new UsageError("--api-key-env and --api-key-file: give one place to read the key from", helpFor);
  }
  const hfEnv = given("hf-token-env");
  const hfFile = given("hf-token-file");
  if (hfEnv !== undefined && hfFile !== undefined) {
    throw new UsageError(
      "--hf-token-env and --hf-token-file: give one place to read the token from",
      helpFor,
    );
  }
  if ((hfEnv !== undefined || hfFile !== undefined) && given("hf-token-secret") === undefined) {
    throw new UsageError("--hf-token-env and --hf-token-file: go with --hf-token-secret NAME[:KEY]", helpFor);
  }
  // Any of the key flags asks for a key; the engines read it from a Secret, never from the values.
  const wantsKey =
    apiKeyEnv !== undefined || apiKeyFile !== undefined || given("api-key-secret") !== undefined;
  const apiKeySecret = wantsKey
    ? secretReference(given("api-key-secret") ?? "vllm-api-key", "VLLM_API_KEY", "--api-key-secret", helpFor)
    : undefined;
  const hfSecret = given("hf-token-secret");

  const options: StackOptions = {
    ...defined("name", given("name")),
    ...defined("release", given("release")),
    ...defined("namespace", given("namespace")),
    ...defined("image", given("image")),
    ...defined("replicas", numberOrRaw(given("replicas"))),
    ...defined("gpusPerReplica", numberOrRaw(given("gpus-per-replica"))),
    ...defined("cpu", numberOrRaw(given("cpu"))),
    ...defined("memory", given("memory")),
    ...(values["no-prefix-caching"] === true ? { prefixCaching: false } : {}),
    ...(apiKeySecret === undefined ? {} : { apiKeySecret }),
    ...(hfSecret === undefined
      ? {}
      : { hfTokenSecret: secretReference(hfSecret, "HF_TOKEN", "--hf-token-secret", helpFor) }),
    ...defined("storage", storage(values, helpFor)),
    ...defined("adapterLoading", given("adapter-loading")),
    ...defined("routing", given("routing")),
    ...defined("sessionHeader", given("session-header")),
    ...defined("runtimeClassName", given("runtime-class")),
    ...defined("startupTimeoutSeconds", numberOrRaw(given("startup-timeout"))),
  };
  // The key's value is never read here: only the shell that runs `kubectl create secret` reads it.
  const config: ServeOptions = parsed.options;
  const files: StackCommandFiles = {
    ...(apiKeyFile !== undefined ? { apiKeyFrom: { file: apiKeyFile } } : {}),
    ...(apiKeyEnv !== undefined ? { apiKeyFrom: { env: apiKeyEnv } } : {}),
    ...(hfFile !== undefined ? { hfTokenFrom: { file: hfFile } } : {}),
    ...(hfEnv !== undefined ? { hfTokenFrom: { env: hfEnv } } : {}),
  };
  return { kind, config, options, files, out: given("out") };
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
    throw new UsageError(`${flag}: must be NAME or NAME:KEY (given ${quoted(text)})`, helpFor);
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
      throw new UsageError(`--storage-claim: must be NAME:/mount/path (given ${quoted(claim)})`, helpFor);
    return { kind: "claim", claimName: claim.slice(0, at), mountPath: claim.slice(at + 1) };
  }
  return hostPath === undefined ? undefined : { kind: "hostPath", path: hostPath };
}

/** `{ [key]: value }` when given; typed loosely so the builder, which checks every value, names what is wrong. */
function defined<K extends string>(key: K, value: unknown): Partial<Record<K, never>> {
  return (value === undefined ? {} : { [key]: value }) as Partial<Record<K, never>>;
}
