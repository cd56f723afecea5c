import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { getFreePort } from "@finetune-studio/testing";
import { describe, expect, it } from "vitest";
import { cleanEnv, startCli, tempDir } from "./test/cli-process.js";

// `studio-serve doctor` against stand-in python3, vllm and nvidia-smi programs on a PATH of their own.

function machine(programs: Record<string, string>, home: Record<string, string> = {}) {
  const root = tempDir("doctor-");
  const bin = join(root, "bin");
  mkdirSync(bin);
  for (const [name, output] of Object.entries(programs)) {
    const file = join(bin, name);
    writeFileSync(file, `#!/bin/sh\nprintf '%s\\n' '${output}'\n`);
    chmodSync(file, 0o755);
  }
  const homeDir = join(root, "home");
  for (const [path, content] of Object.entries(home)) {
    mkdirSync(join(homeDir, path, ".."), { recursive: true });
    writeFileSync(join(homeDir, path), content);
  }
  return cleanEnv({ PATH: bin, HOME: homeDir, HF_HOME: "" });
}

async function doctor(args: string[], env: NodeJS.ProcessEnv, cwd?: string) {
  const proc = startCli(["doctor", ...args], env, cwd);
  const code = await proc.exited;
  return { code, output: proc.output() };
}

describe("studio-serve doctor", { timeout: 60_000 }, () => {
  it("passes on a machine with everything, reading the hub CLI's saved token", async () => {
    const env = machine(
      {
        python3: "Python 3.12.3",
        vllm: "",
        "nvidia-smi": "NVIDIA L4, 22000, 23034",
      },
      { ".cache/huggingface/token": "hf_secret_never_printed" },
    );
    const port = await getFreePort();
    const { code, output } = await doctor(["--port", String(port), "--json"], env);
    expect(code).toBe(0);
    const report = JSON.parse(output) as {
      ok: boolean;
      checks: { check: string; status: string; detail: string }[];
    };
    expect(report.ok).toBe(true);
    expect(report.checks.map((c) => c.status)).toEqual(["pass", "pass", "pass", "pass", "pass"]);
    expect(report.checks[2]?.detail).toBe("NVIDIA L4: 21.5 GiB free of 22.5 GiB");
    expect(report.checks[3]?.detail).toMatch(/saved hub token/);
    expect(output).not.toContain("hf_secret_never_printed");
  });

  it("fails with the fixes on a bare machine whose port is taken", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    try {
      const { code, output } = await doctor(["--port", String(port)], machine({}));
      expect(code).toBe(1);
      expect(output).toMatch(/^FAIL {2}python /m);
      expect(output).toMatch(/^FAIL {2}vllm /m);
      expect(output).toMatch(/^warn {2}gpu /m);
      expect(output).toMatch(/^warn {2}hub login /m);
      expect(output).toMatch(new RegExp(`^FAIL {2}port +127\\.0\\.0\\.1:${port} is in use`, "m"));
      expect(output).toContain("fix: pip install vllm");
    } finally {
      server.close();
    }
  });

  it("warns but passes with an old Python the specification allows and no GPU", async () => {
    const env = machine({ python3: "Python 3.9.18", vllm: "" });
    const { code, output } = await doctor(["--port", String(await getFreePort())], {
      ...env,
      HF_TOKEN: "hf_x",
    });
    expect(code).toBe(0);
    expect(output).toMatch(/^warn {2}python +Python 3\.9\.18 \(python3\): meets 3\.8/m);
    expect(output).toMatch(/^ok {4}hub login +HF_TOKEN is set/m);
  });

  it("never runs a program from the current directory through an empty or relative PATH entry", async () => {
    const env = machine({ python3: "Python 3.12.3", vllm: "" });
    const cwd = tempDir("doctor-cwd-");
    const marker = join(cwd, "ran");
    for (const name of ["python3", "python", "nvidia-smi", "vllm"]) {
      const file = join(cwd, name);
      writeFileSync(file, `#!/bin/sh\ntouch '${marker}'\necho "Python 3.99.0"\n`);
      chmodSync(file, 0o755);
    }
    mkdirSync(join(cwd, "rel"));
    for (const path of [`:${env.PATH}`, `${env.PATH}::/nonexistent`, `.:${env.PATH}`, `rel:${env.PATH}`]) {
      const { output } = await doctor(["--port", String(await getFreePort())], { ...env, PATH: path }, cwd);
      expect(existsSync(marker)).toBe(false);
      expect(output).toMatch(/Python 3\.12\.3/);
    }
  });
});
