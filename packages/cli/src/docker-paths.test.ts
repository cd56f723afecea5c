import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, cleanEnv, tempDir } from "./test/cli-process.js";

// `command --docker` run where the model is: a local directory given relative reaches the container
// mounted read-only from its absolute path, never as a name vLLM would look up on the hub.
const here = tempDir("docker-paths-");
mkdirSync(join(here, "models", "x"), { recursive: true });
mkdirSync(join(here, "adapters", "support"), { recursive: true });
writeFileSync(join(here, "acme"), "a file, not a hub owner's directory");

function command(...args: string[]) {
  const run = spawnSync(process.execPath, [CLI, "command", ...args, "--docker", "--hf-cache", "/data/hf"], {
    cwd: here,
    env: cleanEnv(),
    encoding: "utf8",
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

function dockerArgv(...args: string[]): string[] {
  const { code, stdout, stderr } = command(...args, "--json");
  expect(stderr).not.toMatch(/^studio-serve:/m);
  expect(code).toBe(0);
  return JSON.parse(stdout).argv;
}

/** The read-only mount of `path` at the same place, and the arguments after the image. */
function mountAndServed(argv: string[], path: string) {
  const image = argv.indexOf("vllm/vllm-openai:latest");
  return { mounted: argv.includes(`${path}:${path}:ro`), served: argv.slice(image + 1) };
}

describe("command --docker with a local model directory", () => {
  it.each(["models/x", "./models/x", "models/x/"])("mounts %s read-only from its absolute path", (model) => {
    const argv = dockerArgv("full", model);
    const absolute = join(here, "models", "x");
    const { mounted, served } = mountAndServed(argv, absolute);
    expect(mounted).toBe(true);
    expect(served[0]).toBe(absolute);
  });

  it("mounts a relative base model and adapter of a LoRA serve", () => {
    const argv = dockerArgv("lora", "models/x", "--adapter", "support=adapters/support");
    expect(mountAndServed(argv, join(here, "models", "x")).served[0]).toBe(join(here, "models", "x"));
    const adapter = join(here, "adapters", "support");
    expect(argv).toContain(`${adapter}:${adapter}:ro`);
    expect(argv).toContain(`support=${adapter}`);
  });

  it("leaves a hub id that is not here untouched, even beside a file named like its owner", () => {
    const argv = dockerArgv("full", "acme/support-8b");
    expect(argv.filter((arg) => arg.endsWith(":ro"))).toEqual([]);
    expect(argv).toContain("acme/support-8b");
  });

  it.each([
    [
      "models/typo",
      /^studio-serve: <model>: must exist here to be mounted for docker: models\/ is a directory here/,
    ],
    ["./typo", /^studio-serve: <model>: must exist here to be mounted for docker: it starts with \. /],
  ])("refuses %s, which reads as local but is not here, naming the path", (model, message) => {
    const { code, stdout, stderr } = command("full", model);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(message);
    expect(stderr).toContain(`(given "${model}")`);
  });

  it("leaves the plain vllm serve command as typed: vLLM reads the directory where it runs", () => {
    const run = spawnSync(process.execPath, [CLI, "command", "full", "models/x"], {
      cwd: here,
      env: cleanEnv(),
      encoding: "utf8",
    });
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^vllm serve models\/x /);
  });
});
