import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildStackCommands, ServeConfigError, type ServeOptions, type StackOptions } from "../index.js";

const config: ServeOptions = {
  kind: "full",
  model: "acme/support-8b",
  apiKey: "sk-never-in-argv-0123456789",
};
const options: StackOptions = {
  release: "support",
  namespace: "serving",
  apiKeySecret: { name: "vllm-api-key", key: "VLLM_API_KEY" },
};

describe("buildStackCommands", () => {
  it("pins the chart version and names the namespace everywhere", () => {
    const commands = buildStackCommands(config, options, { valuesFile: "out/values.yaml" });
    expect(commands.repoAdd.shell).toBe("helm repo add vllm https://vllm-project.github.io/production-stack");
    expect(commands.repoUpdate.argv).toEqual(["helm", "repo", "update", "vllm"]);
    expect(commands.install.argv).toEqual([
      "helm",
      "install",
      "support",
      "vllm/vllm-stack",
      "--version",
      "0.1.12",
      "--namespace",
      "serving",
      "--values",
      "out/values.yaml",
    ]);
    expect(commands.createNamespace?.shell).toBe("kubectl create namespace serving");
    expect(commands.upgrade.shell).toBe(
      "helm upgrade support vllm/vllm-stack --version 0.1.12 --namespace serving --values out/values.yaml",
    );
    expect(commands.restart.shell).toBe(
      "kubectl rollout restart --namespace serving deployment/support-support-8b-deployment-vllm",
    );
    expect(commands.portForward.argv).toEqual([
      "kubectl",
      "port-forward",
      "--namespace",
      "serving",
      "svc/support-router-service",
      "30080:80",
    ]);
    expect(commands.applyAdapters).toBeUndefined();
    // The namespace must exist before the Secret goes into it, and the Secret before the engines start.
    expect(commands.installSteps.map((step) => step.argv.slice(0, 3).join(" "))).toEqual([
      "helm repo add",
      "helm repo update",
      "kubectl create namespace",
      "kubectl create secret",
      "helm install support",
    ]);
    expect(commands.createHfTokenSecret).toBeUndefined();
  });

  it("reads the key from an environment variable through stdin by default, or from a file", () => {
    const fromEnv = buildStackCommands(config, options).createApiKeySecret;
    expect(fromEnv).toEqual({
      argv: [
        "kubectl",
        "create",
        "secret",
        "generic",
        "vllm-api-key",
        "--namespace",
        "serving",
        "--from-file=VLLM_API_KEY=/dev/stdin",
      ],
      shell:
        "printf '%s' \"$VLLM_API_KEY\" | kubectl create secret generic vllm-api-key --namespace serving --from-file=VLLM_API_KEY=/dev/stdin",
      stdinFromEnv: "VLLM_API_KEY",
    });
    const fromFile = buildStackCommands(config, options, { apiKeyFrom: { file: "/run/keys/vllm key" } });
    expect(fromFile.createApiKeySecret?.shell).toBe(
      "kubectl create secret generic vllm-api-key --namespace serving '--from-file=VLLM_API_KEY=/run/keys/vllm key'",
    );
    expect(fromFile.createApiKeySecret?.stdinFromEnv).toBeUndefined();
  });

  it("adds the Hugging Face token Secret and the adapters' apply when they are used", () => {
    const commands = buildStackCommands(
      { kind: "lora", baseModel: "b/m", adapters: [{ name: "a", path: "/data/a" }], apiKey: "k".repeat(20) },
      {
        adapterLoading: "runtime",
        apiKeySecret: { name: "key", key: "k" },
        hfTokenSecret: { name: "hf", key: "token" },
        storage: { kind: "pvc", size: "10Gi" },
      },
      { adaptersFile: "adapters.yaml", hfTokenFrom: { env: "MY_HF_TOKEN" } },
    );
    expect(commands.applyAdapters?.shell).toBe("kubectl apply --filename adapters.yaml");
    expect(commands.installSteps).toEqual([
      commands.repoAdd,
      commands.repoUpdate,
      commands.createApiKeySecret,
      commands.createHfTokenSecret,
      commands.install,
      commands.applyAdapters,
    ]);
    expect(commands.createHfTokenSecret?.shell).toBe(
      "printf '%s' \"$MY_HF_TOKEN\" | kubectl create secret generic hf --from-file=token=/dev/stdin",
    );
  });

  it.each<[string, { files: unknown; field: string }]>([
    ["a values file that looks like an option", { files: { valuesFile: "-f" }, field: "files.valuesFile" }],
    [
      "a key file kubectl would split",
      { files: { apiKeyFrom: { file: "a,b" } }, field: "files.apiKeyFrom.file" },
    ],
    [
      "a variable name with a space",
      { files: { apiKeyFrom: { env: "MY KEY" } }, field: "files.apiKeyFrom.env" },
    ],
    ["a source that is both", { files: { apiKeyFrom: { env: "A", file: "b" } }, field: "files.apiKeyFrom" }],
  ])("refuses %s", (_name, { files, field }) => {
    expect(() => buildStackCommands(config, options, files as never)).toThrow(
      expect.objectContaining({ name: ServeConfigError.name, field }),
    );
  });
});

describe("the shell text, run by /bin/sh against stand-ins for kubectl and helm", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "stack-commands-"));
    // Each stand-in records its arguments (one per line) and whatever arrives on its standard input.
    for (const tool of ["kubectl", "helm"]) {
      const script = join(dir, tool);
      writeFileSync(
        script,
        `#!/bin/sh\nprintf '%s\\n' "$@" > "${dir}/${tool}.args"\ncat > "${dir}/${tool}.stdin"\n`,
      );
      chmodSync(script, 0o755);
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function run(shell: string, env: Record<string, string> = {}): { args: string[]; stdin: string } {
    const tool = shell.includes("kubectl") ? "kubectl" : "helm";
    execFileSync("/bin/sh", ["-c", shell], {
      env: { PATH: `${dir}:/usr/bin:/bin`, ...env },
      input: "",
    });
    return {
      args: readFileSync(join(dir, `${tool}.args`), "utf8")
        .split("\n")
        .slice(0, -1),
      stdin: readFileSync(join(dir, `${tool}.stdin`), "utf8"),
    };
  }

  it("parses back to argv, and the key reaches kubectl on stdin, byte for byte, never in argv", () => {
    const key = "sk-'quoted' $HOME `x` \\ end";
    const secret = buildStackCommands(config, options).createApiKeySecret;
    if (secret === undefined) throw new Error("expected a secret command");
    const { args, stdin } = run(secret.shell, { VLLM_API_KEY: key });
    expect(args).toEqual(secret.argv.slice(1));
    expect(stdin).toBe(key);
    expect(args.join(" ")).not.toContain("sk-");

    const install = buildStackCommands(config, options, { valuesFile: "my values/it's.yaml" }).install;
    expect(run(install.shell).args).toEqual(install.argv.slice(1));
  });
});
