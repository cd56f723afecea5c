import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  buildLoraAdapterResources,
  buildStackCommands,
  buildStackValues,
  ServeConfigError,
  type StackCommand,
  VLLM_STACK_CHART,
} from "@finetune-studio/serve-kit";
import { stringify } from "yaml";
import { ExitCode } from "../shared/exit-codes.js";
import { ENGINE_FLAG_LIST, wrapList } from "../shared/help.js";
import { type CliIo, UsageError } from "../shared/io.js";
import { type ParsedStackArgs, parseStackArgs, STACK_FIELD_FLAGS } from "../stack/stack-args.js";
import type { CliCommand } from "./command-type.js";

const VALUES_FILE = "values.yaml";
const ADAPTERS_FILE = "adapters.yaml";

/** `studio-serve stack values|adapters`: the chart's values or the LoraAdapter resources, as YAML. */
function runStack(args: readonly string[], io: CliIo): number {
  const [what, ...rest] = args;
  if (what === "--help" || what === "-h") {
    io.out(HELP);
    return ExitCode.Ok;
  }
  if (what !== "values" && what !== "adapters") {
    throw new UsageError(
      what === undefined
        ? "say what to print: values or adapters"
        : `unknown stack output "${what}": use values or adapters`,
      "stack",
    );
  }
  const parsed = parseStackArgs(what, rest);
  if (parsed === "help") {
    io.out(HELP);
    return ExitCode.Ok;
  }
  try {
    return what === "values" ? printValues(parsed, io) : printAdapters(parsed, io);
  } catch (error) {
    // Name the flag the user typed, not the builder's option.
    const flag = error instanceof ServeConfigError ? STACK_FIELD_FLAGS[error.field] : undefined;
    if (error instanceof ServeConfigError && flag !== undefined) {
      throw new ServeConfigError(flag, error.rule, error.given);
    }
    throw error;
  }
}

function printValues(parsed: ParsedStackArgs, io: CliIo): number {
  const { config, options, out } = parsed;
  const files = { ...parsed.files, ...outFiles(out) };
  const values = buildStackValues(config, options);
  const commands = buildStackCommands(config, options, files);
  const yaml = `# Values for vLLM production-stack's ${VLLM_STACK_CHART.name} chart ${VLLM_STACK_CHART.version}, from studio-serve stack values.\n${stringify(values, { lineWidth: 0 })}`;
  const steps = commands.installSteps.map((step) =>
    step === commands.applyAdapters ? withAdaptersNote(step, parsed) : step.shell,
  );
  const later = [
    `# try it: ${commands.portForward.shell}   (then http://127.0.0.1:30080/v1)`,
    `# after changing the values: ${commands.upgrade.shell}`,
    `# after re-uploading the weights: ${commands.restart.shell}`,
  ];
  emit(io, out, VALUES_FILE, yaml, [...steps, ...later]);
  if (options.apiKeySecret === undefined) {
    io.err(
      "warning: no --api-key-secret: anything in the cluster that reaches the router or an engine can use the model\n",
    );
  }
  return ExitCode.Ok;
}

function printAdapters(parsed: ParsedStackArgs, io: CliIo): number {
  const { config, options, out } = parsed;
  const resources = buildLoraAdapterResources(config, options);
  const commands = buildStackCommands(config, options, { ...parsed.files, ...outFiles(out) });
  const yaml = resources.map((resource) => stringify(resource, { lineWidth: 0 })).join("---\n");
  const apply = commands.applyAdapters?.shell ?? "";
  emit(io, out, ADAPTERS_FILE, yaml, [
    `${apply}   # once the chart is installed (studio-serve stack values)`,
    `# remove an adapter: kubectl delete loraadapter <name>${options.namespace === undefined ? "" : ` --namespace ${options.namespace}`}`,
  ]);
  return ExitCode.Ok;
}

function withAdaptersNote(step: StackCommand, parsed: ParsedStackArgs): string {
  const where = parsed.out === undefined ? "> adapters.yaml" : `--out ${parsed.out}`;
  return `${step.shell}   # after: studio-serve stack adapters ${parsed.kind} ... ${where}`;
}

function outFiles(out: string | undefined) {
  return out === undefined
    ? {}
    : { valuesFile: join(out, VALUES_FILE), adaptersFile: join(out, ADAPTERS_FILE) };
}

/**
 * Without --out the YAML goes to stdout (to redirect) and the commands to stderr as comments; with --out
 * the file is written and the commands go to stdout.
 */
function emit(io: CliIo, out: string | undefined, file: string, yaml: string, commands: string[]): void {
  if (out === undefined) {
    io.out(yaml);
    io.err(
      `# then run:\n${commands.map((line) => (line.startsWith("#") ? line : `#   ${line}`)).join("\n")}\n`,
    );
    return;
  }
  mkdirSync(out, { recursive: true });
  const path = join(out, file);
  writeFileSync(path, yaml, { mode: 0o644 });
  io.err(`wrote ${path}\n`);
  io.out(`${commands.join("\n")}\n`);
}

const HELP = `studio-serve stack: run a fine-tuned model on Kubernetes with vLLM production-stack.

Prints values for the ${VLLM_STACK_CHART.name} Helm chart (version ${VLLM_STACK_CHART.version}) or its LoraAdapter
resources, as YAML, and the helm and kubectl commands that use them.

Usage:
  studio-serve stack values full <model> [options] [-- vllm options]
  studio-serve stack values lora <base> --adapter name=path ... [options] [-- vllm options]
  studio-serve stack adapters lora <base> --adapter name=path ... --adapter-loading runtime [options]

What to serve (as for studio-serve command):
  --served-model-name N     the name clients send in "model" (lora: for the base model)
  --adapter name=path       lora: an adapter (hub repository, or a path under the storage); repeat
  vLLM's engine options, as for studio-serve command (see its --help; prefix caching is on unless
  --no-enable-prefix-caching; --tensor-parallel-size must equal --gpus-per-replica):
${wrapList(ENGINE_FLAG_LIST)}

Engines:
  --name N                  the model's name in the chart (default: from the served name or base)
  --release R               the Helm release (default vllm)   --namespace NS   install there
  --image repo:tag          the vLLM image (default vllm/vllm-openai:latest; pin a tag)
  --replicas N              engine pods (default 1)           --gpus-per-replica G (default 1;
                            more shards the model across them)
  --cpu N, --memory Q       requested per pod (default 8 and 32Gi)
  --runtime-class C         the pods' runtime class (--no-prefix-caching: --no-enable-prefix-caching)
  --startup-timeout S       how long an engine may take to load before it is restarted (default 1800)

Weights on disk (local paths must sit under the mount):
  --storage-pvc SIZE        a claim the chart makes per model, at /data (also the Hugging Face cache)
     [--storage-class C] [--access-mode ReadWriteOnce|ReadWriteMany]
  --storage-claim NAME:/dir an existing claim holding the weights, read-only at /dir
  --storage-host-path /dir  a directory on every GPU node, read-only at the same path

Secrets (values never go in argv or in the values):
  --api-key-secret NAME[:KEY]  the Secret clients' key lives in (default vllm-api-key:VLLM_API_KEY);
                            --api-key-env NAME (default VLLM_API_KEY) or --api-key-file PATH is where
                            kubectl create secret reads it from
  --hf-token-secret NAME[:KEY] a Hugging Face token for gated repositories (key default HF_TOKEN),
                            read from --hf-token-env NAME (default HF_TOKEN) or --hf-token-file PATH

Adapters and routing:
  --adapter-loading static|runtime  static (default): --lora-modules on every engine; runtime: the
                            chart's LoRA controller loads LoraAdapter resources (needs a key)
  --routing least-busy|session|prefix  (default least-busy, as launch; the router rotates: roundrobin)
  --session-header NAME  (with session routing; default x-session-id)

Output:
  --out DIR                 write DIR/values.yaml (or DIR/adapters.yaml) and print the commands;
                            without it the YAML goes to stdout and the commands to stderr

Example:
  studio-serve stack values full acme/support-8b --served-model-name support --replicas 2 \\
    --image vllm/vllm-openai:v0.11.0 --api-key-secret vllm-api-key --out deploy
`;

export const stack: CliCommand = {
  name: "stack",
  synopsis: [
    ["stack values full|lora ... [--out DIR]", "print vllm-stack Helm values for Kubernetes"],
    ["stack adapters lora ... [--out DIR]", "print its LoraAdapter resources"],
  ],
  help: HELP,
  run: runStack,
};
