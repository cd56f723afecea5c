import {
  buildLoraAdapterResources,
  buildStackCommands,
  buildStackScaledObject,
  buildStackValues,
  type FullServeOptions,
  type LoraServeOptions,
  type StackOptions,
} from "@finetune-studio/serve-kit";
import { stringify } from "yaml";
import type { Snippet } from "./markdown.js";
import { studioServe } from "./serving-cli.js";

// The serving guide's "Past one machine" snippets. The values, resources and commands come from
// serve-kit's stack builders; the studio-serve lines shown are run at build time, and what they print
// must be what the builders build, or the build fails.

const image = "vllm/vllm-openai:v0.11.0";
const apiKeySecret = { name: "vllm-api-key", key: "VLLM_API_KEY" };

/** The full model of the guide, on two engine pods behind the router. */
const fullOnStack: { config: FullServeOptions; options: StackOptions; args: string[] } = {
  config: { kind: "full", model: "your-org/support-assistant", servedModelName: "support-assistant" },
  options: { replicas: 2, image, apiKeySecret },
  args: [
    "full",
    "your-org/support-assistant",
    "--served-model-name",
    "support-assistant",
    "--replicas",
    "2",
    "--image",
    image,
    "--api-key-secret",
    "vllm-api-key",
  ],
};

/** Adapters on a claim that already holds them, loaded and swapped by the chart's LoRA controller. */
const adaptersOnStack: { config: LoraServeOptions; options: StackOptions; args: string[] } = {
  config: {
    kind: "lora",
    baseModel: "meta-llama/Llama-3.1-8B-Instruct",
    adapters: [
      { name: "support-assistant", path: "/models/support-assistant-lora" },
      { name: "sql-helper", path: "/models/sql-helper-lora" },
    ],
    maxLoraRank: 32,
  },
  options: {
    image,
    apiKeySecret,
    adapterLoading: "runtime",
    storage: { kind: "claim", claimName: "fine-tuned-weights", mountPath: "/models" },
  },
  args: [
    "lora",
    "meta-llama/Llama-3.1-8B-Instruct",
    "--adapter",
    "support-assistant=/models/support-assistant-lora",
    "--adapter",
    "sql-helper=/models/sql-helper-lora",
    "--max-lora-rank",
    "32",
    "--image",
    image,
    "--api-key-secret",
    "vllm-api-key",
    "--adapter-loading",
    "runtime",
    "--storage-claim",
    "fine-tuned-weights:/models",
  ],
};

/** The full model again, its engines scaled by KEDA between 1 and 4 on vLLM's own signals. */
const scaledOnStack: { config: FullServeOptions; options: StackOptions; args: string[] } = {
  config: fullOnStack.config,
  options: { ...fullOnStack.options, replicas: { min: 1, max: 4 } },
  args: [...fullOnStack.args.slice(0, 4), "--replicas", "1..4", ...fullOnStack.args.slice(6)],
};

const yaml = (value: unknown) => stringify(value, { lineWidth: 0 });

/** Runs `studio-serve stack <what> ...` and checks it prints exactly `expected` (after its header comment). */
function checkedCli(
  what: "values" | "adapters" | "scaledobject",
  args: readonly string[],
  expected: string,
): string {
  const cli = studioServe();
  const printed = cli.run(["stack", what, ...args]).replace(/^#.*\n/, "");
  if (printed !== expected) {
    throw new Error(
      `studio-serve stack ${what} ${args.join(" ")} prints\n${printed}\nbut the builder builds\n${expected}`,
    );
  }
  const line = [`${cli.binName} stack ${what}`, ...args].join(" ");
  return `${line} --out deploy`.replace(/ (--?[a-z])/g, " \\\n  $1");
}

export function stackSnippets(): Record<string, Snippet> {
  const values = buildStackValues(fullOnStack.config, fullOnStack.options);
  const commands = buildStackCommands(fullOnStack.config, fullOnStack.options, {
    valuesFile: "deploy/values.yaml",
  });
  const adapterValues = buildStackValues(adaptersOnStack.config, adaptersOnStack.options);
  const resources = buildLoraAdapterResources(adaptersOnStack.config, adaptersOnStack.options);
  const adapterCommands = buildStackCommands(adaptersOnStack.config, adaptersOnStack.options, {
    adaptersFile: "deploy/adapters.yaml",
  });
  if (!adapterCommands.applyAdapters) throw new Error("runtime adapter loading gives a kubectl apply");
  return {
    "stack-values-cli": { lang: "sh", code: checkedCli("values", fullOnStack.args, yaml(values)) },
    "stack-values": { lang: "yaml", title: "deploy/values.yaml", code: yaml(values) },
    "stack-install": {
      lang: "sh",
      code: [
        "# The key clients will send, typed at the prompt: it stays out of the command line and history.",
        "read -rs VLLM_API_KEY && export VLLM_API_KEY",
        ...commands.installSteps.map((step) => step.shell),
      ].join("\n"),
    },
    "stack-try": {
      lang: "sh",
      code: `${commands.portForward.shell} &\ncurl http://127.0.0.1:30080/v1/models -H "Authorization: Bearer $VLLM_API_KEY"`,
    },
    "stack-adapters-cli": {
      lang: "sh",
      code: [
        checkedCli("values", adaptersOnStack.args, yaml(adapterValues)),
        checkedCli("adapters", adaptersOnStack.args, resources.map(yaml).join("---\n")),
      ].join("\n"),
    },
    "stack-adapters": {
      lang: "yaml",
      title: "deploy/adapters.yaml",
      code: resources.map(yaml).join("---\n"),
    },
    "stack-adapters-apply": { lang: "sh", code: adapterCommands.applyAdapters.shell },
    "stack-update": { lang: "sh", code: [commands.restart.shell, commands.upgrade.shell].join("\n") },
    ...autoscaleSnippets(),
  };
}

function autoscaleSnippets(): Record<string, Snippet> {
  const { config, options, args } = scaledOnStack;
  const scaledObject = buildStackScaledObject(config, options);
  const commands = buildStackCommands(config, options, {
    valuesFile: "deploy/values.yaml",
    scaledObjectFile: "deploy/scaledobject.yaml",
  });
  if (scaledObject === undefined || !commands.applyScaledObject)
    throw new Error("a range gives a ScaledObject");
  checkedCli("scaledobject", args, yaml(scaledObject));
  return {
    "stack-autoscale-cli": {
      lang: "sh",
      code: checkedCli("values", args, yaml(buildStackValues(config, options))),
    },
    "stack-scaledobject": { lang: "yaml", title: "deploy/scaledobject.yaml", code: yaml(scaledObject) },
    "stack-scaledobject-apply": { lang: "sh", code: commands.applyScaledObject.shell },
  };
}
