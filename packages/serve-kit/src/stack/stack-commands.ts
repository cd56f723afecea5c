import { ServeConfigError } from "../errors.js";
import { toShellText } from "../internal/shell.js";
import { hasControlCharacter } from "../internal/text.js";
import { checkKnownKeys, checkObject, refuse } from "../internal/validate.js";
import type { ServeOptions } from "../serve-options.js";
import { chartEngineDeployment, VLLM_STACK_CHART } from "./chart.js";
import { type NormalizedStack, normalizeStackOptions } from "./normalize-stack.js";
import { stackScaledObject } from "./scaled-object.js";
import type { SecretKeyReference, StackOptions } from "./stack-options.js";
import { runtimeLoading } from "./stack-values.js";

/** Where `kubectl create secret` reads a secret value from: never argv, where `ps` would show it. */
export type SecretSource =
  /** A file holding only the value (write it without a trailing newline: the Secret keeps every byte). */
  | { file: string }
  /** An environment variable of the shell that runs the command, piped to kubectl's standard input. */
  | { env: string };

export interface StackCommandFiles {
  /** The values file `helm install -f` reads; `values.yaml` by default. */
  valuesFile?: string;
  /** The file of `LoraAdapter` resources `kubectl apply -f` reads; `adapters.yaml` by default. */
  adaptersFile?: string;
  /** The KEDA ScaledObject `kubectl apply -f` reads, with a range of replicas; `scaledobject.yaml` by default. */
  scaledObjectFile?: string;
  /** Where the API key comes from; the `VLLM_API_KEY` environment variable by default. */
  apiKeyFrom?: SecretSource;
  /** Where the Hugging Face token comes from; the `HF_TOKEN` environment variable by default. */
  hfTokenFrom?: SecretSource;
}

export interface StackCommand {
  /** The command as an argument vector, to spawn without a shell. */
  argv: string[];
  /** POSIX shell text: `argv` quoted, behind `printf '%s' "$NAME" |` when the value comes from a variable. */
  shell: string;
  /** When set, the command expects this environment variable's value on its standard input. */
  stdinFromEnv?: string;
}

/** The commands that install the chart with the values, in the order to run them. */
export interface StackCommands {
  /** `helm repo add`: makes the chart's repository known to Helm. */
  repoAdd: StackCommand;
  /** `helm repo update`: fetches its index, so the pinned version is found. */
  repoUpdate: StackCommand;
  /** `kubectl create namespace`, when a namespace is given: the Secrets go in it before the chart does. */
  createNamespace?: StackCommand;
  /** `kubectl create secret generic` for the API key, when the configuration has one. */
  createApiKeySecret?: StackCommand;
  /** `kubectl create secret generic` for the Hugging Face token, when `hfTokenSecret` is given. */
  createHfTokenSecret?: StackCommand;
  /** `helm install` of the pinned chart version with the values file. */
  install: StackCommand;
  /** `kubectl apply` of the `LoraAdapter` resources, with runtime adapter loading (after the install). */
  applyAdapters?: StackCommand;
  /** `kubectl apply` of the KEDA ScaledObject, with a range of replicas (after the install: it targets the chart's Deployment). */
  applyScaledObject?: StackCommand;
  /** `helm upgrade`: rolls the engines over to changed values (a new image or model, say). */
  upgrade: StackCommand;
  /** `kubectl rollout restart`: restarts the engines one by one, so they load re-uploaded weights. */
  restart: StackCommand;
  /** `kubectl port-forward` to the router, to try it from this machine on http://127.0.0.1:30080/v1. */
  portForward: StackCommand;
  /** The install, in the order to run it: repository, namespace, Secrets, chart, then adapters and the ScaledObject. */
  installSteps: StackCommand[];
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Where `kubectl create secret` reads the key and the token when not told: the variables vLLM and the hub read. */
export const DEFAULT_SECRET_SOURCES = {
  apiKeyFrom: { env: "VLLM_API_KEY" },
  hfTokenFrom: { env: "HF_TOKEN" },
} as const satisfies Record<string, SecretSource>;

/** The files and secret sources the commands read, checked, with their defaults. */
interface CheckedFiles {
  valuesFile: string;
  adaptersFile: string;
  scaledObjectFile: string;
  apiKeyFrom: SecretSource;
  hfTokenFrom: SecretSource;
}

/**
 * The `helm` and `kubectl` commands that install the chart with `buildStackValues`'s values (and, with
 * runtime adapter loading, apply `buildLoraAdapterResources`'s resources; with a range of replicas,
 * `buildStackScaledObject`'s ScaledObject): plain data, argv and shell text. Secret values are read by
 * kubectl from a file or from standard input, never passed in argv. Pure; throws a `ServeConfigError` for
 * bad input.
 */
export function buildStackCommands(
  config: ServeOptions,
  options: StackOptions = {},
  files: StackCommandFiles = {},
): StackCommands {
  const stack = normalizeStackOptions(config, options);
  const checked = checkFiles(files);
  const commands = chartCommands(stack, checked);
  const installSteps = [
    commands.repoAdd,
    commands.repoUpdate,
    ...[commands.createNamespace, commands.createApiKeySecret, commands.createHfTokenSecret].filter(
      isDefined,
    ),
    commands.install,
    ...[commands.applyAdapters, commands.applyScaledObject].filter(isDefined),
  ];
  return { ...commands, installSteps };
}

function checkFiles(files: StackCommandFiles): CheckedFiles {
  checkKnownKeys(
    checkObject(files, "files"),
    ["valuesFile", "adaptersFile", "scaledObjectFile", "apiKeyFrom", "hfTokenFrom"],
    "the command files",
  );
  return {
    valuesFile: checkFilePath(files.valuesFile ?? "values.yaml", "files.valuesFile"),
    adaptersFile: checkFilePath(files.adaptersFile ?? "adapters.yaml", "files.adaptersFile"),
    scaledObjectFile: checkFilePath(files.scaledObjectFile ?? "scaledobject.yaml", "files.scaledObjectFile"),
    apiKeyFrom: checkSecretSource(files.apiKeyFrom ?? DEFAULT_SECRET_SOURCES.apiKeyFrom, "files.apiKeyFrom"),
    hfTokenFrom: checkSecretSource(
      files.hfTokenFrom ?? DEFAULT_SECRET_SOURCES.hfTokenFrom,
      "files.hfTokenFrom",
    ),
  };
}

/** Every command, each once; the optional ones only where the stack needs them. */
function chartCommands(stack: NormalizedStack, files: CheckedFiles): Omit<StackCommands, "installSteps"> {
  const namespace = stack.namespace === undefined ? [] : ["--namespace", stack.namespace];
  const chart = `${VLLM_STACK_CHART.repositoryName}/${VLLM_STACK_CHART.name}`;
  const chartArgs = [
    chart,
    "--version",
    VLLM_STACK_CHART.version,
    ...namespace,
    "--values",
    files.valuesFile,
  ];
  const deployment = chartEngineDeployment(stack.release, stack.name);
  const { repositoryName, repositoryUrl } = VLLM_STACK_CHART;
  return {
    repoAdd: command(["helm", "repo", "add", repositoryName, repositoryUrl]),
    repoUpdate: command(["helm", "repo", "update", repositoryName]),
    install: command(["helm", "install", stack.release, ...chartArgs]),
    upgrade: command(["helm", "upgrade", stack.release, ...chartArgs]),
    restart: command(["kubectl", "rollout", "restart", ...namespace, `deployment/${deployment}`]),
    portForward: command([
      "kubectl",
      "port-forward",
      ...namespace,
      `svc/${stack.release}-router-service`,
      "30080:80",
    ]),
    ...optionalCommands(stack, files, namespace),
  };
}

function optionalCommands(
  stack: NormalizedStack,
  files: CheckedFiles,
  namespace: string[],
): Partial<StackCommands> {
  const apply = (file: string) => command(["kubectl", "apply", ...namespace, "--filename", file]);
  return {
    ...(stack.namespace === undefined
      ? {}
      : { createNamespace: command(["kubectl", "create", "namespace", stack.namespace]) }),
    ...(stack.apiKeySecret === undefined
      ? {}
      : { createApiKeySecret: createSecret(stack, stack.apiKeySecret, files.apiKeyFrom) }),
    ...(stack.hfTokenSecret === undefined
      ? {}
      : { createHfTokenSecret: createSecret(stack, stack.hfTokenSecret, files.hfTokenFrom) }),
    ...(runtimeLoading(stack) ? { applyAdapters: apply(files.adaptersFile) } : {}),
    ...(stackScaledObject(stack) === undefined ? {} : { applyScaledObject: apply(files.scaledObjectFile) }),
  };
}

function isDefined<T>(value: T | undefined): value is T {
  return value !== undefined;
}

function command(argv: string[], stdinFromEnv?: string): StackCommand {
  const text = toShellText(argv);
  if (stdinFromEnv === undefined) return { argv, shell: text };
  return { argv, shell: `printf '%s' "$${stdinFromEnv}" | ${text}`, stdinFromEnv };
}

function createSecret(
  stack: NormalizedStack,
  secret: SecretKeyReference,
  source: SecretSource,
): StackCommand {
  const namespace = stack.namespace === undefined ? [] : ["--namespace", stack.namespace];
  const path = "file" in source ? source.file : "/dev/stdin";
  const argv = [
    "kubectl",
    "create",
    "secret",
    "generic",
    secret.name,
    ...namespace,
    `--from-file=${secret.key}=${path}`,
  ];
  return command(argv, "env" in source ? source.env : undefined);
}

function checkFilePath(value: unknown, field: string): string {
  if (typeof value !== "string" || value === "" || value.startsWith("-") || hasControlCharacter(value)) {
    refuse(field, "must be a file path that does not start with '-' and holds no control characters", value);
  }
  return value;
}

function checkSecretSource(value: unknown, field: string): SecretSource {
  const source = checkObject(value, field);
  const keys = Object.keys(source);
  if (keys.length !== 1 || (keys[0] !== "file" && keys[0] !== "env")) {
    throw new ServeConfigError(
      field,
      "must be { file: path } or { env: NAME }",
      `the keys ${keys.join(", ") || "none"}`,
    );
  }
  if ("env" in source) {
    if (typeof source.env !== "string" || !ENV_NAME.test(source.env)) {
      refuse(`${field}.env`, "must be an environment variable name", source.env);
    }
    return { env: source.env };
  }
  const file = checkFilePath(source.file, `${field}.file`);
  // kubectl reads --from-file as a comma-separated (CSV) list, so a ',' or '"' would split or mangle the path.
  if (/[,"]/.test(file)) {
    refuse(`${field}.file`, "must not hold ',' or '\"', which kubectl's --from-file list would split", file);
  }
  return { file };
}
