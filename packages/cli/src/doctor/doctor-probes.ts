import { execFile } from "node:child_process";
import { stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { probePort } from "@finetune-studio/internal";
import { queryGpuMemory } from "../shared/nvidia-smi.js";
import { findExecutable } from "../shared/which.js";
import type { DoctorProbes } from "./doctor-checks.js";

interface RunResult {
  ok: boolean;
  missing: boolean;
  output: string;
}

/**
 * Runs a program without a shell and collects its output; never throws. The program is looked up here, on
 * PATH's absolute directories only: execFile would also search the current directory for an empty or
 * relative entry (`PATH=":/usr/bin"`), running whatever `./python3` is there.
 */
async function run(name: string, args: string[], env: NodeJS.ProcessEnv): Promise<RunResult> {
  const command = await findExecutable(name, env.PATH);
  if (command === undefined) return { ok: false, missing: true, output: `${name} is not on PATH` };
  return new Promise((resolve) => {
    execFile(command, args, { env, timeout: 20_000, encoding: "utf8" }, (error, stdout, stderr) => {
      const output = `${stdout}${stderr}`.trim();
      if (!error) resolve({ ok: true, missing: false, output });
      else
        resolve({
          ok: false,
          missing: (error as NodeJS.ErrnoException).code === "ENOENT",
          output: output || error.message,
        });
    });
  });
}

async function probePython(env: NodeJS.ProcessEnv): Promise<DoctorProbes["python"]> {
  for (const command of ["python3", "python"]) {
    const result = await run(command, ["--version"], env);
    // Python 2 prints its version on stderr, which `run` collects too.
    if (result.ok && /Python \d/.test(result.output))
      return { command, version: result.output.split("\n")[0] ?? "" };
  }
  return undefined;
}

async function probeGpus(env: NodeJS.ProcessEnv): Promise<DoctorProbes["gpus"]> {
  const answer = await queryGpuMemory(env);
  if (answer.kind === "missing") return { missing: true };
  if (answer.kind === "failed") return { error: answer.reason || "no output" };
  return { gpus: answer.gpus };
}

/** Where a hub token is, without reading it: the environment, or the file `hf auth login` writes. */
async function probeHubLogin(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (env.HF_TOKEN) return "HF_TOKEN is set";
  if (env.HUGGING_FACE_HUB_TOKEN) return "HUGGING_FACE_HUB_TOKEN is set";
  const hfHome = env.HF_HOME || join(env.HOME || homedir(), ".cache", "huggingface");
  const tokenFile = env.HF_TOKEN_PATH || join(hfHome, "token");
  try {
    if ((await stat(tokenFile)).size > 0) return `saved hub token (${tokenFile})`;
  } catch {
    // No token file.
  }
  return undefined;
}

export async function probeDoctor(env: NodeJS.ProcessEnv, host: string, port: number): Promise<DoctorProbes> {
  const [python, vllmPath, gpus, hubLogin, portState] = await Promise.all([
    probePython(env),
    findExecutable("vllm", env.PATH),
    probeGpus(env),
    probeHubLogin(env),
    probePort(host, port),
  ]);
  return {
    python,
    vllmPath,
    gpus,
    hubLogin,
    port: { host, port, ...portState },
  };
}
