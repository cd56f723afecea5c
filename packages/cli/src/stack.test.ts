import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  buildLoraAdapterResources,
  buildStackCommands,
  buildStackDashboard,
  buildStackValues,
  type ServeOptions,
  type StackOptions,
} from "@finetune-studio/serve-kit";
import { afterEach, describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { runCapture } from "./test/run-cli.js";

const base = "meta-llama/Llama-3.1-8B-Instruct";
const runtimeWithoutToken = [
  "--adapter-loading",
  "runtime",
  "--api-key-secret",
  "vllm-api-key",
  "--storage-pvc",
  "50Gi",
];
const loraArgs = [
  "lora",
  base,
  "--adapter",
  "support=/data/adapters/support",
  "--adapter",
  "sales=acme/sales-lora",
  "--max-lora-rank",
  "32",
];
const lora: ServeOptions = {
  kind: "lora",
  baseModel: base,
  adapters: [
    { name: "support", path: "/data/adapters/support" },
    { name: "sales", path: "acme/sales-lora" },
  ],
  maxLoraRank: 32,
};

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("studio-serve stack values", () => {
  it("prints the builder's values as YAML, and the install commands on stderr", async () => {
    const { code, stdout, stderr } = await runCapture([
      "stack",
      "values",
      "full",
      "acme/support-8b",
      "--served-model-name",
      "support",
      "--replicas",
      "2",
      "--gpus-per-replica",
      "2",
      "--image",
      "vllm/vllm-openai:v0.11.0",
      "--max-model-len",
      "8192",
      "--dtype",
      "bfloat16",
      "--",
      "--seed",
      "7",
    ]);
    expect(code).toBe(0);
    const config: ServeOptions = {
      kind: "full",
      model: "acme/support-8b",
      servedModelName: "support",
      extraArgs: ["--seed", "7"],
    };
    const options: StackOptions = {
      replicas: 2,
      gpusPerReplica: 2,
      image: "vllm/vllm-openai:v0.11.0",
      maxModelLen: 8192,
      dtype: "bfloat16",
    };
    expect(stdout).toMatch(/^# Values for vLLM production-stack's vllm-stack chart 0\.1\.12/);
    expect(parse(stdout)).toEqual(buildStackValues(config, options));
    const commands = buildStackCommands(config, options);
    for (const step of commands.installSteps) expect(stderr).toContain(`#   ${step.shell}\n`);
    expect(stderr).toContain(commands.restart.shell);
    expect(stderr).toContain("warning: no --api-key-secret");
  });

  it("refers to the key's Secret and variable, and never prints the key", async () => {
    const env = { VLLM_API_KEY: "sk-never-printed-0123456789", MY_KEY: "sk-never-printed-either" };
    const { code, stdout, stderr } = await runCapture(
      [
        "stack",
        "values",
        ...loraArgs,
        "--api-key-secret",
        "keys:vllm",
        "--api-key-env",
        "MY_KEY",
        "--storage-pvc",
        "50Gi",
      ],
      env,
    );
    expect(code).toBe(0);
    expect(parse(stdout).servingEngineSpec.vllmApiKey).toEqual({ secretName: "keys", secretKey: "vllm" });
    expect(stderr).toContain(
      `printf '%s' "$MY_KEY" | kubectl create secret generic keys --from-file=vllm=/dev/stdin`,
    );
    expect(stdout + stderr).not.toContain("sk-never-printed");
    expect(stderr).not.toContain("warning:");
  });

  it("--out writes values.yaml and prints the commands that read it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "stack-cli-"));
    dirs.push(dir);
    const out = join(dir, "deploy");
    const args = ["stack", "values", ...loraArgs, "--storage-pvc", "50Gi", "--namespace", "serving"];
    const printed = await runCapture(args);
    const written = await runCapture([...args, "--out", out]);
    expect(written.code).toBe(0);
    const file = join(out, "values.yaml");
    expect(readFileSync(file, "utf8")).toBe(printed.stdout);
    expect(statSync(file).mode & 0o777).toBe(0o644);
    expect(written.stderr.split("\n")[0]).toBe(`wrote ${file}`);
    expect(written.stdout).toContain(
      `helm install vllm vllm/vllm-stack --version 0.1.12 --namespace serving --values ${file}\n`,
    );
    expect(written.stdout).toContain("kubectl create namespace serving\n");
  });
});

describe("studio-serve stack values --routing, in the router's own terms", () => {
  it.each([
    [[], { enableRouter: true, routingLogic: "roundrobin" }],
    [["--routing", "round-robin"], { enableRouter: true, routingLogic: "roundrobin" }],
    [["--routing", "session"], { enableRouter: true, routingLogic: "session", sessionKey: "x-session-id" }],
    [
      ["--routing", "session", "--session-header", "x-user-id"],
      { enableRouter: true, routingLogic: "session", sessionKey: "x-user-id" },
    ],
    [["--routing", "prefix"], { enableRouter: true, routingLogic: "prefixaware" }],
  ])("%j sets the router to %j", async (flags, routerSpec) => {
    const { code, stdout } = await runCapture(["stack", "values", "full", base, ...flags]);
    expect(code).toBe(0);
    expect(parse(stdout).routerSpec).toEqual(routerSpec);
  });

  it("refuses the router's own spellings and a header without session routing, naming the flag", async () => {
    const chart = await runCapture(["stack", "values", "full", base, "--routing", "roundrobin"]);
    expect(chart.code).toBe(2);
    expect(chart.stderr).toMatch(
      /--routing: must be one of round-robin, session, prefix \(given "roundrobin"\)/,
    );
    // production-stack's router has no least-busy logic: it was written as roundrobin, which is not least-busy.
    const leastBusy = await runCapture(["stack", "values", "full", base, "--routing", "least-busy"]);
    expect(leastBusy.code).toBe(2);
    expect(leastBusy.stdout).toBe("");
    expect(leastBusy.stderr).toMatch(
      /--routing: is not a logic production-stack's router has .*use round-robin \(its roundrobin\), session or prefix/,
    );
    const header = await runCapture(["stack", "values", "full", base, "--session-header", "x-user-id"]);
    expect(header.code).toBe(2);
    expect(header.stderr).toMatch(/--session-header: applies to routing 'session' only/);
  });
});

describe("studio-serve stack adapters", () => {
  const runtime = [...runtimeWithoutToken, "--hf-token-secret", "hf-token"];
  const options: StackOptions = {
    adapterLoading: "runtime",
    apiKeySecret: { name: "vllm-api-key", key: "VLLM_API_KEY" },
    storage: { kind: "pvc", size: "50Gi" },
    hfTokenSecret: { name: "hf-token", key: "HF_TOKEN" },
  };

  it("prints one YAML document per adapter, and kubectl apply", async () => {
    const { code, stdout, stderr } = await runCapture(["stack", "adapters", ...loraArgs, ...runtime]);
    expect(code).toBe(0);
    expect(parseAllDocuments(stdout).map((doc) => doc.toJS())).toEqual(
      buildLoraAdapterResources(lora, options),
    );
    expect(stderr).toContain("#   kubectl apply --filename adapters.yaml");
  });

  it("--out writes adapters.yaml; the values then load them through the controller", async () => {
    const dir = mkdtempSync(join(tmpdir(), "stack-cli-"));
    dirs.push(dir);
    const adapters = await runCapture(["stack", "adapters", ...loraArgs, ...runtime, "--out", dir]);
    const values = await runCapture(["stack", "values", ...loraArgs, ...runtime, "--out", dir]);
    expect(adapters.code).toBe(0);
    expect(values.code).toBe(0);
    const file = join(dir, "adapters.yaml");
    expect(parseAllDocuments(readFileSync(file, "utf8"))).toHaveLength(2);
    expect(adapters.stdout).toContain(`kubectl apply --filename ${file}`);
    expect(values.stdout).toContain(`kubectl apply --filename ${file}`);
    const written = parse(readFileSync(join(dir, "values.yaml"), "utf8"));
    expect(written.loraController).toEqual({ enableLoraController: true });
  });
});

describe("studio-serve stack dashboard", () => {
  it("prints buildStackDashboard's ConfigMap, its queries on the chart's engine job, and kubectl apply", async () => {
    const args = ["stack", "dashboard", "full", base, "--release", "prod", "--namespace", "serving"];
    const { code, stdout, stderr } = await runCapture(args);
    expect(code, stderr).toBe(0);
    const configMap = buildStackDashboard(
      { kind: "full", model: base },
      { release: "prod", namespace: "serving" },
    );
    expect(parse(stdout)).toEqual(configMap);
    expect(configMap.metadata.labels).toEqual({ grafana_dashboard: "1" });
    expect(stderr).toContain("#   kubectl apply --filename dashboard.yaml");
  });

  it("--out writes dashboard.yaml (0644), the same as printed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "stack-cli-"));
    dirs.push(dir);
    const args = ["stack", "dashboard", ...loraArgs, "--storage-pvc", "50Gi"];
    const printed = await runCapture(args);
    const written = await runCapture([...args, "--out", dir]);
    expect(written.code, written.stderr).toBe(0);
    const file = join(dir, "dashboard.yaml");
    expect(readFileSync(file, "utf8")).toBe(printed.stdout);
    expect(statSync(file).mode & 0o777).toBe(0o644);
    expect(written.stdout).toContain(`kubectl apply --filename ${file}`);
  });

  it("refuses an unknown output, listing the four", async () => {
    const { code, stderr } = await runCapture(["stack", "dashboards", "full", base]);
    expect(code).toBe(2);
    expect(stderr).toContain(
      'unknown stack output "dashboards": use values, adapters, dashboard or scaledobject',
    );
  });
});

describe("studio-serve stack refuses bad input with exit code 2, naming the flag", () => {
  it("refuses a hub adapter loaded at runtime without --hf-token-secret, naming the flag", async () => {
    const { code, stderr } = await runCapture(["stack", "adapters", ...loraArgs, ...runtimeWithoutToken]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/--hf-token-secret: must name the Secret .* with a hub token/);
  });

  it.each<[string, string[], RegExp]>([
    ["no output named", ["stack"], /say what to print: values, adapters, dashboard or scaledobject/],
    ["an unknown output", ["stack", "chart", "full", "m/m"], /unknown stack output "chart"/],
    ["--host, which the chart decides", ["stack", "values", "full", "m/m", "--host", "0.0.0.0"], /--host/],
    [
      "a fractional replica count",
      ["stack", "values", "full", "m/m", "--replicas", "1.5"],
      /^studio-serve: --replicas: must be a whole number N or a range MIN\.\.MAX/,
    ],
    [
      "a bad memory",
      ["stack", "values", "full", "m/m", "--memory", "lots"],
      /^studio-serve: --memory: must be a positive Kubernetes quantity/,
    ],
    [
      "two kinds of storage",
      ["stack", "values", "full", "m/m", "--storage-pvc", "1Gi", "--storage-host-path", "/m"],
      /one kind of storage/,
    ],
    [
      "a claim without a mount",
      ["stack", "values", "full", "m/m", "--storage-claim", "weights"],
      /NAME:\/mount\/path/,
    ],
    [
      "a local model without storage",
      ["stack", "values", "full", "/models/m"],
      /^studio-serve: <model>: is a local path: give storage/,
    ],
    [
      "a secret reference with two colons",
      ["stack", "values", "full", "m/m", "--api-key-secret", "a:b:c"],
      /NAME or NAME:KEY/,
    ],
    [
      "a key file and a key variable",
      ["stack", "values", "full", "m/m", "--api-key-env", "K", "--api-key-file", "/k"],
      /one place/,
    ],
    [
      "adapters loaded statically",
      ["stack", "adapters", ...loraArgs, "--storage-pvc", "1Gi"],
      /--adapter-loading: must be 'runtime'/,
    ],
    [
      "runtime loading without a key",
      ["stack", "values", ...loraArgs, "--adapter-loading", "runtime", "--storage-pvc", "1Gi"],
      /--api-key-secret: is required with --adapter-loading 'runtime'/,
    ],
  ])("%s", async (_name, args, message) => {
    const { code, stdout, stderr } = await runCapture(args);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(message);
  });

  it("is listed in the main help, with its own --help", async () => {
    const main = await runCapture(["--help"]);
    expect(main.stdout).toContain("studio-serve stack values full|lora ... [options] [-- vllm options]");
    const help = await runCapture(["stack", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--storage-claim NAME:/dir");
    expect((await runCapture(["stack", "values", "--help"])).stdout).toBe(help.stdout);
  });
});
