import {
  type ServeOptions,
  STACK_OPTION_LIST,
  type StackCommandFiles,
  type StackOption,
  type StackOptionKey,
  type StackOptions,
  type StackStorage,
} from "@finetune-studio/serve-kit";
import { DEFAULT_API_KEY_SECRET, DEFAULT_SECRET_SOURCES } from "@finetune-studio/serve-kit/internal";
import { OUT_FLAG } from "../shared/common-flags.js";
import { ENGINE_FLAGS } from "../shared/engine-flags.js";
import { describedAs, type Flag, switchFlag, textFlag } from "../shared/flags.js";
import { inHelp, UsageError } from "../shared/io.js";
import { numberOrRaw } from "../shared/raw-values.js";
import {
  ADAPTER_FLAG,
  type ParsedServeArgs,
  parseServeArgs,
  SERVE_KEY_FLAG,
  SERVED_NAME_FLAG,
} from "../shared/serve-args.js";
import { quoted } from "../shared/values.js";

// The flags of `studio-serve stack`: the serving intent as `command` takes it (where engines listen is the
// chart's business, so no --host or --port), and how to run it on Kubernetes. Each stack option's flag,
// value name and help line come from serve-kit's stack option table; the builders check the values.

/** The flag of a table entry given by one flag or switch; its field is the option, so refusals name the flag. */
function tableFlag(option: StackOption<StackOptionKey>): Flag {
  const { cli } = option;
  if (cli.kind === "switch") return switchFlag(cli.flag.slice(2), option.help, undefined, option.key);
  if (cli.kind !== "flag") throw new Error(`${option.key} is not given by one flag`);
  return textFlag(cli.flag.slice(2), { valueName: cli.valueName, help: option.help, field: option.key });
}

/** Every table entry with a flag of its own, by option. */
const TABLE_FLAGS = new Map(
  STACK_OPTION_LIST.filter((option) => option.cli.kind === "flag" || option.cli.kind === "switch").map(
    (option) => [option.key, tableFlag(option)],
  ),
);

function flagOf(key: StackOptionKey): Flag {
  const flag = TABLE_FLAGS.get(key);
  if (flag === undefined) throw new Error(`${key} has no flag in the stack option table`);
  return flag;
}

/** `--replicas N|MIN..MAX`, which `stack scaledobject` needs as a range. */
export const REPLICAS_FLAG = flagOf("replicas");
/** `--adapter-loading static|runtime`, which `stack adapters` needs as runtime. */
export const ADAPTER_LOADING_FLAG = flagOf("adapterLoading");

export const STACK_SERVE_FLAGS: readonly Flag[] = [
  describedAs(SERVED_NAME_FLAG, 'the name clients send in "model" (lora: for the base model)'),
  describedAs(ADAPTER_FLAG, "lora: an adapter (hub repository, or a path under the storage); repeat"),
];
export const ENGINE_POD_FLAGS: readonly Flag[] = (
  [
    "name",
    "release",
    "namespace",
    "image",
    "replicas",
    "gpusPerReplica",
    "cpu",
    "memory",
    "runtimeClassName",
    "prefixCaching",
    "startupTimeoutSeconds",
  ] as const
).map(flagOf);
export const AUTOSCALE_FLAGS: readonly Flag[] = (
  ["scaleOn", "prometheusUrl", "scaleDownAfterSeconds"] as const
).map(flagOf);

const STORAGE_PVC_FLAG = textFlag("storage-pvc", {
  valueName: "SIZE",
  field: "storage.size",
  help: "a claim the chart makes per model, at /data (also the Hugging Face cache)",
});
const STORAGE_CLASS_FLAG = textFlag("storage-class", {
  valueName: "C",
  field: "storage.storageClass",
  help: "with --storage-pvc: its storage class",
});
const ACCESS_MODE_FLAG = textFlag("access-mode", {
  valueName: "ReadWriteOnce|ReadWriteMany",
  field: "storage.accessMode",
  help: "with --storage-pvc: its access mode (default ReadWriteOnce, or\nReadWriteMany for more than one replica)",
});
const STORAGE_CLAIM_FLAG = textFlag("storage-claim", {
  valueName: "NAME:/dir",
  help: "an existing claim holding the weights, read-only at /dir",
});
const STORAGE_HOST_PATH_FLAG = textFlag("storage-host-path", {
  valueName: "/dir",
  field: "storage.path",
  help: "a directory on every GPU node, read-only at the same path",
});
/** The flags that together give the table's `storage` (its entry lists them). */
export const STORAGE_FLAGS: readonly Flag[] = [
  STORAGE_PVC_FLAG,
  STORAGE_CLASS_FLAG,
  ACCESS_MODE_FLAG,
  STORAGE_CLAIM_FLAG,
  STORAGE_HOST_PATH_FLAG,
];

const API_KEY_FILE_FLAG = textFlag("api-key-file", {
  valueName: "PATH",
  field: "files.apiKeyFrom.file",
  help: "or the file it reads the key from",
});
const HF_TOKEN_ENV_FLAG = textFlag("hf-token-env", {
  valueName: "NAME",
  field: "files.hfTokenFrom.env",
  help: `where kubectl create secret reads the token (default ${DEFAULT_SECRET_SOURCES.hfTokenFrom.env})`,
});
const HF_TOKEN_FILE_FLAG = textFlag("hf-token-file", {
  valueName: "PATH",
  field: "files.hfTokenFrom.file",
  help: "or the file it reads the token from",
});
const STACK_KEY_ENV_FLAG = {
  ...describedAs(
    SERVE_KEY_FLAG,
    `where kubectl create secret reads the key (default ${DEFAULT_SECRET_SOURCES.apiKeyFrom.env})`,
  ),
  field: "files.apiKeyFrom.env",
};
export const SECRET_FLAGS: readonly Flag[] = [
  flagOf("apiKeySecret"),
  STACK_KEY_ENV_FLAG,
  API_KEY_FILE_FLAG,
  flagOf("hfTokenSecret"),
  HF_TOKEN_ENV_FLAG,
  HF_TOKEN_FILE_FLAG,
];
export const ROUTING_FLAGS: readonly Flag[] = (["adapterLoading", "routing", "sessionHeader"] as const).map(
  flagOf,
);
export const STACK_OUT_FLAG = describedAs(
  OUT_FLAG,
  "write DIR/values.yaml (with a range, DIR/scaledobject.yaml too; or\nDIR/adapters.yaml) and print the commands; without it the YAML goes to\nstdout and the commands to stderr",
);

export const STACK_FLAGS: readonly Flag[] = [
  ...STACK_SERVE_FLAGS,
  ...ENGINE_FLAGS,
  ...ENGINE_POD_FLAGS,
  ...AUTOSCALE_FLAGS,
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
 * The builders' fields that no one flag's declaration names: a part of a flag's value, or one of the
 * files --out sets. (Every other field is named by the flag whose declaration sets it.)
 */
export const STACK_FIELD_FLAGS: Readonly<Record<string, string>> = {
  "storage.claimName": "--storage-claim name",
  "storage.mountPath": "--storage-claim mount path",
  "files.valuesFile": "--out",
  "files.adaptersFile": "--out",
  "files.scaledObjectFile": "--out",
};

/** Parses `<full|lora> <model> [flags] [-- vllm args]` for `stack <what>`, or asks for the help. */
export function parseStackArgs(what: string, args: readonly string[]): ParsedStackArgs | "help" {
  const subcommand = `stack ${what}`;
  const parsed = parseServeArgs(subcommand, args, STACK_FLAGS);
  if (parsed === "help") return "help";
  const files = inHelp(subcommand, () => secretFiles(parsed));
  const options: StackOptions = {
    ...tableOptions(parsed),
    ...defaultApiKeySecret(parsed, files),
    ...defined(
      "storage",
      inHelp(subcommand, () => storage(parsed)),
    ),
  };
  // The key's value is never read here: only the shell that runs `kubectl create secret` reads it.
  return {
    kind: parsed.kind,
    config: parsed.options,
    options,
    files,
    out: parsed.get(STACK_OUT_FLAG) as string | undefined,
  };
}

/**
 * The options given by a flag of their own, read by the table's declarations: as typed (a plain number
 * becomes a number), or through the entry's `fromText` (`1..4`, `queue=5`, `NAME:KEY`).
 */
function tableOptions(parsed: ParsedServeArgs): StackOptions {
  const options: Record<string, unknown> = {};
  for (const [key, flag] of TABLE_FLAGS) {
    const { cli } = STACK_OPTION_LIST.find((option) => option.key === key) as StackOption<StackOptionKey>;
    const value = parsed.get(flag);
    if (cli.kind === "switch") {
      if (value === true) options[key] = cli.value;
    } else if (typeof value === "string") {
      options[key] =
        cli.kind === "flag" && cli.fromText !== undefined ? cli.fromText(value, key) : numberOrRaw(value);
    }
  }
  return options as StackOptions;
}

/** Any of the key flags asks for a key; the engines read it from a Secret, never from the values. */
function defaultApiKeySecret(parsed: ParsedServeArgs, files: StackCommandFiles): StackOptions {
  if (files.apiKeyFrom === undefined || parsed.get(flagOf("apiKeySecret")) !== undefined) return {};
  return { apiKeySecret: { ...DEFAULT_API_KEY_SECRET } };
}

/** Where `kubectl create secret` reads the key and the token: a variable or a file, one of each. */
function secretFiles(parsed: ParsedServeArgs): StackCommandFiles {
  const apiKeyEnv = parsed.apiKeyEnv;
  const apiKeyFile = parsed.get(API_KEY_FILE_FLAG) as string | undefined;
  const hfEnv = parsed.get(HF_TOKEN_ENV_FLAG) as string | undefined;
  const hfFile = parsed.get(HF_TOKEN_FILE_FLAG) as string | undefined;
  if (apiKeyEnv !== undefined && apiKeyFile !== undefined) {
    throw new UsageError("--api-key-env and --api-key-file: give one place to read the key from");
  }
  if (hfEnv !== undefined && hfFile !== undefined) {
    throw new UsageError("--hf-token-env and --hf-token-file: give one place to read the token from");
  }
  if ((hfEnv !== undefined || hfFile !== undefined) && parsed.get(flagOf("hfTokenSecret")) === undefined) {
    throw new UsageError("--hf-token-env and --hf-token-file: go with --hf-token-secret NAME[:KEY]");
  }
  return {
    ...(apiKeyFile !== undefined ? { apiKeyFrom: { file: apiKeyFile } } : {}),
    ...(apiKeyEnv !== undefined ? { apiKeyFrom: { env: apiKeyEnv } } : {}),
    ...(hfFile !== undefined ? { hfTokenFrom: { file: hfFile } } : {}),
    ...(hfEnv !== undefined ? { hfTokenFrom: { env: hfEnv } } : {}),
  };
}

/** The one kind of storage given, from its flags (the table's `storage` entry lists them). */
function storage(parsed: ParsedServeArgs): StackStorage | undefined {
  const read = (flag: Flag) => parsed.get(flag) as string | undefined;
  const [pvc, claim, hostPath] = [STORAGE_PVC_FLAG, STORAGE_CLAIM_FLAG, STORAGE_HOST_PATH_FLAG].map(read);
  if ([pvc, claim, hostPath].filter((value) => value !== undefined).length > 1) {
    throw new UsageError("--storage-pvc, --storage-claim and --storage-host-path: give one kind of storage");
  }
  for (const flag of [STORAGE_CLASS_FLAG, ACCESS_MODE_FLAG]) {
    if (read(flag) !== undefined && pvc === undefined)
      throw new UsageError(`--${flag.name}: goes with --storage-pvc`);
  }
  if (pvc !== undefined) {
    return {
      kind: "pvc",
      size: pvc,
      ...defined("storageClass", read(STORAGE_CLASS_FLAG)),
      ...defined("accessMode", read(ACCESS_MODE_FLAG)),
    };
  }
  if (claim !== undefined) {
    // The mount path is absolute, so the claim name ends at the first ':'.
    const at = claim.indexOf(":");
    if (at <= 0) throw new UsageError(`--storage-claim: must be NAME:/mount/path (given ${quoted(claim)})`);
    return { kind: "claim", claimName: claim.slice(0, at), mountPath: claim.slice(at + 1) };
  }
  return hostPath === undefined ? undefined : { kind: "hostPath", path: hostPath };
}

/** `{ [key]: value }` when given; typed loosely so the builder, which checks every value, names what is wrong. */
function defined<K extends string>(key: K, value: unknown): Partial<Record<K, never>> {
  return (value === undefined ? {} : { [key]: value }) as Partial<Record<K, never>>;
}
