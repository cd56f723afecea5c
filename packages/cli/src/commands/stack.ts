import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  buildLoraAdapterResources,
  buildStackCommands,
  buildStackDashboard,
  buildStackScaledObject,
  buildStackValues,
  ServeConfigError,
  type StackCommand,
  VLLM_STACK_CHART,
} from "@finetune-studio/serve-kit";
import { stringify } from "yaml";
import { type CommandArgs, positional, synopsisOf, usageLines } from "../shared/command-args.js";
import { ENGINE_FLAG_LIST } from "../shared/engine-flags.js";
import { ExitCode } from "../shared/exit-codes.js";
import { flagHelp } from "../shared/flags.js";
import { wrapList } from "../shared/help.js";
import { type CliIo, UsageError } from "../shared/io.js";
import { makeDirectories } from "../shared/safe-files.js";
import { quoted } from "../shared/values.js";
import {
  ADAPTER_LOADING_FLAG,
  AUTOSCALE_FLAGS,
  ENGINE_POD_FLAGS,
  type ParsedStackArgs,
  parseStackArgs,
  REPLICAS_FLAG,
  ROUTING_FLAGS,
  SECRET_FLAGS,
  STACK_FIELD_FLAGS,
  STACK_FLAGS,
  STACK_OUT_FLAG,
  STACK_SERVE_FLAGS,
  STORAGE_FLAGS,
} from "../stack/stack-args.js";
import type { CliCommand } from "./command-type.js";

const VALUES_FILE = "values.yaml";
const ADAPTERS_FILE = "adapters.yaml";
const DASHBOARD_FILE = "dashboard.yaml";
const SCALED_OBJECT_FILE = "scaledobject.yaml";
const OUTPUTS = ["values", "adapters", "dashboard", "scaledobject"] as const;

/** What to serve, as `command` takes it; parseServeArgs reads it. */
const SERVE_ARG = positional("full|lora ...", "what to serve");
const LORA_ARG = positional("lora ...", "a base model and its adapters");
/** Each output's command line; the builders check the flag each needs (--replicas a range, ...). */
const FORMS: Record<(typeof OUTPUTS)[number], CommandArgs> = {
  values: {
    name: "stack values",
    positionals: [SERVE_ARG],
    flags: STACK_FLAGS,
    trailing: "[-- vllm options]",
    note: "the chart's values, and the helm commands",
  },
  adapters: {
    name: "stack adapters",
    positionals: [LORA_ARG],
    flags: STACK_FLAGS,
    requiredFlags: [{ ...ADAPTER_LOADING_FLAG, usage: "--adapter-loading runtime" }],
    builderChecks: true,
    note: "its LoraAdapter resources",
  },
  dashboard: {
    name: "stack dashboard",
    positionals: [SERVE_ARG],
    flags: STACK_FLAGS,
    note: "its Grafana dashboard, as a ConfigMap for Grafana's sidecar",
  },
  scaledobject: {
    name: "stack scaledobject",
    positionals: [SERVE_ARG],
    flags: STACK_FLAGS,
    requiredFlags: [{ ...REPLICAS_FLAG, usage: "--replicas MIN..MAX" }],
    builderChecks: true,
    note: "the KEDA ScaledObject for its engines",
  },
};

/** `studio-serve stack values|adapters|dashboard|scaledobject`: the chart's values, the LoraAdapter resources, the Grafana dashboard's ConfigMap or the KEDA ScaledObject, as YAML. */
function runStack(args: readonly string[], io: CliIo): number {
  const [what, ...rest] = args;
  if (what === "--help" || what === "-h") {
    io.out(HELP);
    return ExitCode.Ok;
  }
  if (what === undefined || !OUTPUTS.includes(what as (typeof OUTPUTS)[number])) {
    throw new UsageError(
      what === undefined
        ? "say what to print: values, adapters, dashboard or scaledobject"
        : `unknown stack output ${quoted(what)}: use values, adapters, dashboard or scaledobject`,
    );
  }
  const parsed = parseStackArgs(what, rest);
  if (parsed === "help") {
    io.out(HELP);
    return ExitCode.Ok;
  }
  try {
    return PRINTERS[what as (typeof OUTPUTS)[number]](parsed, io);
  } catch (error) {
    // Name the flag the user typed, not the builder's option.
    const flag = error instanceof ServeConfigError ? STACK_FIELD_FLAGS[error.field] : undefined;
    if (error instanceof ServeConfigError && flag !== undefined) {
      throw new ServeConfigError(flag, error.rule, error.given);
    }
    throw error;
  }
}

const PRINTERS: Record<(typeof OUTPUTS)[number], (parsed: ParsedStackArgs, io: CliIo) => number> = {
  values: printValues,
  adapters: printAdapters,
  dashboard: printDashboard,
  scaledobject: printScaledObject,
};

function printValues(parsed: ParsedStackArgs, io: CliIo): number {
  const { config, options, out } = parsed;
  const files = { ...parsed.files, ...outFiles(out) };
  // Every builder runs before anything is written: a refused option leaves no file behind.
  const values = buildStackValues(config, options);
  const scaledObject = buildStackScaledObject(config, options);
  const commands = buildStackCommands(config, options, files);
  const yaml = `# Values for vLLM production-stack's ${VLLM_STACK_CHART.name} chart ${VLLM_STACK_CHART.version}, from studio-serve stack values.\n${stringify(values, { lineWidth: 0 })}`;
  const steps = commands.installSteps.map((step) => {
    if (step === commands.applyAdapters) return withNote(step, parsed, "adapters", ADAPTERS_FILE);
    if (step === commands.applyScaledObject && out === undefined)
      return withNote(step, parsed, "scaledobject", SCALED_OBJECT_FILE);
    return step.shell;
  });
  const later = [
    `# try it: ${commands.portForward.shell}   (then http://127.0.0.1:30080/v1)`,
    `# after changing the values: ${commands.upgrade.shell}`,
    `# after re-uploading the weights: ${commands.restart.shell}`,
  ];
  if (scaledObject !== undefined && out !== undefined) {
    writeOut(io, out, SCALED_OBJECT_FILE, scaledObjectYaml(scaledObject));
  }
  emit(io, out, VALUES_FILE, yaml, [...steps, ...later]);
  if (options.apiKeySecret === undefined) {
    io.err(
      "warning: no --api-key-secret: anything in the cluster that reaches the router or an engine can use the model\n",
    );
  }
  return ExitCode.Ok;
}

/** The KEDA ScaledObject for a range of replicas, on its own (`stack values --out` writes it too). */
function printScaledObject(parsed: ParsedStackArgs, io: CliIo): number {
  const { config, options, out } = parsed;
  const scaledObject = buildStackScaledObject(config, options);
  if (scaledObject === undefined) {
    throw new UsageError("--replicas: give a range MIN..MAX for KEDA to scale between", "stack scaledobject");
  }
  const commands = buildStackCommands(config, options, { ...parsed.files, ...outFiles(out) });
  emit(io, out, SCALED_OBJECT_FILE, scaledObjectYaml(scaledObject), [
    `${commands.applyScaledObject?.shell ?? ""}   # once the chart is installed (studio-serve stack values)`,
  ]);
  return ExitCode.Ok;
}

function scaledObjectYaml(scaledObject: object): string {
  return `# KEDA ScaledObject for production-stack's engine Deployment, from studio-serve stack: the chart cannot carry these triggers.\n${stringify(scaledObject, { lineWidth: 0 })}`;
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

/** The Grafana dashboard as a ConfigMap Grafana's sidecar imports, its queries on the chart's engine job. */
function printDashboard(parsed: ParsedStackArgs, io: CliIo): number {
  const { config, options, out } = parsed;
  const configMap = buildStackDashboard(config, options);
  const yaml = `# The studio-serve Grafana dashboard for ${VLLM_STACK_CHART.name}, from studio-serve stack dashboard.\n${stringify(configMap, { lineWidth: 0 })}`;
  const file = out === undefined ? DASHBOARD_FILE : join(out, DASHBOARD_FILE);
  emit(io, out, DASHBOARD_FILE, yaml, [
    `kubectl apply --filename ${file}   # in the namespace of a Grafana whose dashboard sidecar is on (sidecar.dashboards.enabled)`,
    "# its queries read the engines' scrape job, the engine Service's name (a ServiceMonitor on it)",
  ]);
  return ExitCode.Ok;
}

function withNote(step: StackCommand, parsed: ParsedStackArgs, output: string, file: string): string {
  const where = parsed.out === undefined ? `> ${file}` : `--out ${parsed.out}`;
  return `${step.shell}   # after: studio-serve stack ${output} ${parsed.kind} ... ${where}`;
}

function outFiles(out: string | undefined) {
  return out === undefined
    ? {}
    : {
        valuesFile: join(out, VALUES_FILE),
        adaptersFile: join(out, ADAPTERS_FILE),
        scaledObjectFile: join(out, SCALED_OBJECT_FILE),
      };
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
  writeOut(io, out, file, yaml);
  io.out(`${commands.join("\n")}\n`);
}

function writeOut(io: CliIo, out: string, file: string, yaml: string): void {
  makeDirectories(out);
  const path = join(out, file);
  writeFileSync(path, yaml, { mode: 0o644 });
  io.err(`wrote ${path}\n`);
}

const HELP = `studio-serve stack: run a fine-tuned model on Kubernetes with vLLM production-stack.

Prints values for the ${VLLM_STACK_CHART.name} Helm chart (version ${VLLM_STACK_CHART.version}), its LoraAdapter
resources, its Grafana dashboard (a ConfigMap) or a KEDA ScaledObject for its engines,
as YAML, and the helm and kubectl commands that use them.

${usageLines(...OUTPUTS.map((output) => FORMS[output]))}

full|lora ... is what to serve, as for studio-serve command: full <model>, or lora <base> --adapter
name=path ... (repeat --adapter for more).

What to serve (as for studio-serve command):
${flagHelp(STACK_SERVE_FLAGS)}
  vLLM's engine options, as for studio-serve command (see its --help; prefix caching is on unless
  --no-enable-prefix-caching; --tensor-parallel-size must equal --gpus-per-replica):
${wrapList(ENGINE_FLAG_LIST)}

Engines:
${flagHelp(ENGINE_POD_FLAGS)}

Autoscaling with KEDA (with --replicas MIN..MAX; see the README's Autoscaling):
${flagHelp(AUTOSCALE_FLAGS)}

Weights on disk (local paths must sit under the mount; give one kind):
${flagHelp(STORAGE_FLAGS)}

Secrets (values never go in argv or in the values):
${flagHelp(SECRET_FLAGS)}

Adapters and routing:
${flagHelp(ROUTING_FLAGS)}

Output:
${flagHelp([STACK_OUT_FLAG])}

Example:
  studio-serve stack values full acme/support-8b --served-model-name support --replicas 2 \\
    --image vllm/vllm-openai:v0.11.0 --api-key-secret vllm-api-key --out deploy
`;

export const stack: CliCommand = {
  name: "stack",
  synopsis: [
    synopsisOf(FORMS.values, "print vllm-stack Helm values for Kubernetes"),
    synopsisOf(FORMS.adapters, "print its LoraAdapter resources"),
    synopsisOf(FORMS.dashboard, "print its Grafana dashboard as a ConfigMap"),
    synopsisOf(FORMS.scaledobject, "print the KEDA ScaledObject for its engines"),
  ],
  help: HELP,
  flags: STACK_FLAGS,
  run: runStack,
};
