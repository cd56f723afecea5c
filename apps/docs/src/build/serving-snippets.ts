import {
  buildDockerCommand,
  buildServeCommand,
  DEFAULT_PROMETHEUS_RULES_FILE,
  DEFAULT_VLLM_IMAGE,
  type FullServeOptions,
  haproxyConfig,
  type LoraServeOptions,
  nginxConfig,
  prometheusConfig,
  prometheusRules,
  type ServeClientConfig,
  type ServeFromRecommendationsOptions,
  type ServeOptions,
  serveConfigFromRecommendations,
} from "@finetune-studio/serve-kit";
import { loadContracts } from "./contracts.js";
import type { Snippet } from "./markdown.js";
import { planSnippets } from "./plan-example.js";
import { scaleSnippets } from "./scale-example.js";
import { cliSnippet, fleetSnippet, studioServe } from "./serving-cli.js";
import { engineOptionsTable } from "./serving-options.js";
import { stackSnippets } from "./serving-stack.js";
import { multilineCommand } from "./shell-lines.js";
import { statusExample } from "./status-example.js";
import { SourceCode, tsLiteral } from "./ts-literal.js";

// Every command and snippet of the serving guide (content/serving.md) comes from here, and every command
// here comes from serve-kit's builder: the guide shows what the code builds, so the two cannot drift.

const fullModel: FullServeOptions = {
  kind: "full",
  model: "your-org/support-assistant",
  servedModelName: "support-assistant",
};
const fullModelFromDisk: FullServeOptions = { ...fullModel, model: "/models/support-assistant" };
const loraModel: LoraServeOptions = {
  kind: "lora",
  baseModel: "meta-llama/Llama-3.1-8B-Instruct",
  adapters: [{ name: "support-assistant", path: "your-org/support-assistant-lora" }],
};
const severalAdapters: LoraServeOptions = {
  ...loraModel,
  adapters: [...loraModel.adapters, { name: "sql-helper", path: "/models/sql-helper-lora" }],
  maxLoras: 2,
  maxLoraRank: 32,
};
const exposed: FullServeOptions = { ...fullModel, host: "0.0.0.0" };
/** The instances behind the load balancer, one per GPU; the balancer takes the port clients know. */
const instancePorts = [8001, 8002];
const balancerPort = 8000;
/** What the guide's user passes for the recommendation path: where the weights are, and the mapping table. */
const fromRecommendations: ServeFromRecommendationsOptions = {
  adapterPath: "your-org/support-assistant-lora",
  adapterName: "support-assistant",
  baseModelMapping: { "llama-3.1-8b-instruct": "meta-llama/Llama-3.1-8B-Instruct" },
};
const question = "How do I reset my password?";

const sh = (code: string): Snippet => ({ lang: "sh", code });
const serve = (options: ServeOptions) => multilineCommand(buildServeCommand(options));
const ts = (title: string, code: string): Snippet => ({ lang: "ts", title, code });
const warningsText = (warnings: readonly string[]): Snippet => {
  if (warnings.length === 0) throw new Error("the guide shows the builder's warnings here, and it gave none");
  return { lang: "text", code: warnings.map((warning) => `warning: ${warning}`).join("\n") };
};

/** The snippets the serving guide places with `<!-- insert: name -->`. */
export function servingSnippets(): Record<string, Snippet> {
  const full = buildServeCommand(fullModel);
  const withKey = buildServeCommand({ ...exposed, apiKey: "placeholder-only-its-name-is-shown" });
  return {
    "full-command": sh(serve(fullModel)),
    "engine-options-table": engineOptionsTable(),
    "full-from-disk-command": sh(serve(fullModelFromDisk)),
    "lora-command": sh(serve(loraModel)),
    "several-adapters-command": sh(serve(severalAdapters)),
    "exposed-without-key-warnings": warningsText(buildServeCommand(exposed).warnings),
    "exposed-with-key-command": sh(
      [
        "# Type the key at the prompt: it stays out of the command line and the shell history.",
        ...Object.keys(withKey.env).map((name) => `read -rs ${name} && export ${name}`),
        multilineCommand(withKey),
      ].join("\n"),
    ),
    "exposed-with-key-warnings": warningsText(withKey.warnings),
    // The image is where docker's own options end and vLLM's begin: a line of its own.
    "docker-command": sh(
      multilineCommand(buildDockerCommand(fullModel), { breakBefore: [DEFAULT_VLLM_IMAGE] }),
    ),
    "cli-launch": sh(
      cliSnippet(fullModel, [
        "full",
        fullModel.model,
        "--served-model-name",
        fullModel.servedModelName ?? "",
      ]),
    ),
    "call-with-chat-client": ts("call-with-client.ts", chatClientSnippet(full.client)),
    "call-with-openai": ts("call-with-openai.ts", openaiSnippet(full.client)),
    ...recommendationSnippets(),
    "serve-from-code": ts("serve.ts", serveFromCodeSnippet()),
    "instances-command": sh(
      instancePorts
        .map((port, gpu) => `CUDA_VISIBLE_DEVICES=${gpu} ${serve({ ...fullModel, port })} &`)
        .join("\n\n"),
    ),
    "fleet-launch": sh(
      fleetSnippet(
        ["full", fullModel.model, "--served-model-name", fullModel.servedModelName ?? ""],
        [
          "lora",
          loraModel.baseModel,
          ...loraModel.adapters.flatMap((adapter) => ["--adapter", `${adapter.name}=${adapter.path}`]),
        ],
        balancerPort,
      ),
    ),
    "haproxy-config": {
      lang: "haproxy",
      // launch's routing, as `studio-serve haproxy` prints it by default.
      code: haproxyConfig({
        servers: instancePorts.map((port) => `127.0.0.1:${port}`),
        listen: balancerPort,
        routing: "session",
      }),
    },
    "nginx-config": {
      lang: "nginx",
      code: nginxConfig({
        upstreams: instancePorts.map((port) => `127.0.0.1:${port}`),
        listen: balancerPort,
      }),
    },
    ...monitoringSnippets(),
    ...scaleSnippets(studioServe().entry),
    ...planSnippets(studioServe().entry),
    ...stackSnippets(),
  };
}

/** The "Monitor it" section: the status view, and the Prometheus files the CLI writes from the builders. */
function monitoringSnippets(): Record<string, Snippet> {
  const cli = studioServe();
  const status = statusExample(cli.entry);
  const targets = instancePorts.map((port) => `127.0.0.1:${port}`);
  const args = ["prometheus", ...targets.flatMap((target) => ["--target", target])];
  const config = prometheusConfig({ targets });
  const rules = prometheusRules();
  // The command the guide shows prints exactly what the builders build: checked here, at build time.
  const printed = cli.run(args);
  const built = `# prometheus.yml\n${config}---\n# ${DEFAULT_PROMETHEUS_RULES_FILE}\n${rules}`;
  if (printed !== built)
    throw new Error(`studio-serve ${args.join(" ")} does not print what the builders build`);
  return {
    "status-view": { lang: "text", code: `$ ${status.command}\n${status.output}`.trimEnd() },
    "status-watch": sh(`${cli.binName} status ${targets.map((t) => `http://${t}`).join(" ")} --watch`),
    "prometheus-command": sh(
      [
        `${cli.binName} ${args.join(" ")} --out ./monitoring`,
        "promtool check config ./monitoring/prometheus.yml",
        "prometheus --config.file=./monitoring/prometheus.yml",
      ].join("\n"),
    ),
    "prometheus-config": { lang: "yaml", title: "monitoring/prometheus.yml", code: config },
    "prometheus-rules": { lang: "yaml", title: `monitoring/${DEFAULT_PROMETHEUS_RULES_FILE}`, code: rules },
  };
}

/** The chat request both client snippets send, printed from one object so they cannot disagree. */
function chatRequest(client: ServeClientConfig) {
  return {
    model: client.model,
    messages: [{ role: "user", content: question }],
    max_tokens: 256,
    temperature: 0.2,
  };
}

function chatClientSnippet(client: ServeClientConfig): string {
  // This client takes the server's root URL and adds /v1 itself; the builder's baseURL is OpenAI-style.
  const baseUrl = client.rootURL;
  return `import { createChatClient } from "@finetune-studio/client";

const chat = createChatClient(${tsLiteral({ baseUrl })});

// Waits for /health, then for /v1/models to list the model: loading the weights can take minutes.
await chat.waitUntilReady(${tsLiteral({ model: client.model })});

const reply = await chat.text(${tsLiteral(chatRequest(client))});
console.log(reply);
`;
}

function openaiSnippet(client: ServeClientConfig): string {
  return `import OpenAI from "openai";

// The local server checks no key, but the SDK insists on one: a dummy value will do.
const openai = new OpenAI(${tsLiteral({ baseURL: client.baseURL, apiKey: client.apiKey })});

const completion = await openai.chat.completions.create(${tsLiteral(chatRequest(client))});
console.log(completion.choices[0]?.message.content);
`;
}

/** The recommendation path, run at build time on the contract's own `completed` example. */
function recommendationSnippets(): Record<string, Snippet> {
  const { studio } = loadContracts();
  const examples = (studio.document.components as { examples: Record<string, { value: unknown }> }).examples;
  const completed = examples.RecommendationsCompleted?.value as Parameters<
    typeof serveConfigFromRecommendations
  >[0];
  if (!completed) throw new Error("the Studio contract has no RecommendationsCompleted example any more");
  const options = serveConfigFromRecommendations(completed, fromRecommendations);
  const code = `import { createStudioClient } from "@finetune-studio/client";
import { buildServeCommand, serveConfigFromRecommendations } from "@finetune-studio/serve-kit";

const token = process.env.STUDIO_TOKEN;
if (!token) throw new Error("Set STUDIO_TOKEN to your studio access token");
const studio = createStudioClient({ baseUrl: "https://studio.example.net", token });

const recommendations = await studio.waitForRecommendations(${tsLiteral(completed.snapshot_id)});
const options = serveConfigFromRecommendations(recommendations, ${tsLiteral(fromRecommendations)});
console.log(buildServeCommand(options).shell);
`;
  return {
    "from-recommendations-code": ts("serve-recommended.ts", code),
    // What the snippet prints: the builder's one-line shell text, as is.
    "from-recommendations-output": { lang: "text", code: buildServeCommand(options).shell },
  };
}

function serveFromCodeSnippet(): string {
  const options = { ...exposed, apiKey: new SourceCode("apiKey") };
  return `import { spawn } from "node:child_process";
import { buildServeCommand } from "@finetune-studio/serve-kit";

const apiKey = process.env.SUPPORT_ASSISTANT_KEY;
if (!apiKey) throw new Error("Set SUPPORT_ASSISTANT_KEY to the key clients will send");

const { argv, env, warnings } = buildServeCommand(${tsLiteral(options)});
for (const warning of warnings) console.warn(\`warning: \${warning}\`);

// An argument vector, not a shell line: no path can be taken for shell syntax.
// The key travels in the environment, out of sight of \`ps\`.
const [command = "vllm", ...args] = argv;
spawn(command, args, { env: { ...process.env, ...env }, stdio: "inherit" });
`;
}
