import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { getFreePort, type ManagedProcess, startProcess } from "@finetune-studio/testing";

// Every temporary directory a test file makes is removed when the file is done (cleanup.setup.ts).
const madeDirs = new Set<string>();

/** Removes every directory tempDir made. */
export function removeTempDirs(): void {
  for (const dir of madeDirs) rmSync(dir, { recursive: true, force: true });
  madeDirs.clear();
}

/** A fresh temporary directory, removed after the test file. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  madeDirs.add(dir);
  return dir;
}

/** The pids `ps` lists in a process group, zombies included; [] when none is left. */
export function processGroupMembers(pgid: number): number[] {
  const out = execFileSync("ps", ["-e", "-o", "pid=,pgid="], { encoding: "utf8" });
  return out
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/).map(Number))
    .filter(([, group]) => group === pgid)
    .map(([pid]) => pid as number);
}

/** The process group id launch printed at start. */
export function printedProcessGroup(output: string): number {
  const match = /process group (\d+)\)/.exec(output);
  if (!match) throw new Error(`launch printed no process group:\n${output}`);
  return Number(match[1]);
}

// The CLI tests run the built executable, as a user would: `pnpm test` builds first.
export const CLI = fileURLToPath(new URL("../../dist/main.js", import.meta.url));
export const FAKE_VLLM_BIN = fileURLToPath(new URL("./fixtures/bin", import.meta.url));

/** The environment of a test run: no key or proxy settings from the developer's shell leak in. */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of [
    "VLLM_API_KEY",
    "HF_TOKEN",
    "HUGGING_FACE_HUB_TOKEN",
    "HTTP_PROXY",
    "http_proxy",
    "NO_COLOR",
  ]) {
    delete env[name];
  }
  return { ...env, ...extra };
}

export interface FakeVllmRecord {
  argv: string[];
  apiKey: string | null;
  pid: number;
  signals: string[];
  workerPid: number | null;
  /** Chat completions that reached it while it slept (each crashed it, as it crashes vLLM). */
  chatWhileAsleep: number;
}

/** A sleep-mode event a stand-in wrote to the events file of its environment (fake-vllm-sleep.mjs). */
export interface FakeVllmEvent {
  event: "asleep" | "awake" | "wake-failed" | "chat-while-asleep";
  pid: number;
  port: number;
  timeMs: number;
  [detail: string]: unknown;
}

/** An environment with the stand-in `vllm` first on PATH, recording into a fresh file. */
export function fakeVllmEnv(extra: NodeJS.ProcessEnv = {}) {
  const recordPath = join(tempDir("fake-vllm-"), "record.json");
  const env = cleanEnv({
    PATH: `${FAKE_VLLM_BIN}:${dirname(process.execPath)}:${process.env.PATH ?? ""}`,
    FAKE_VLLM_NODE: process.execPath,
    FAKE_VLLM_RECORD: recordPath,
    // A launch's runtime directory goes into one of the test's own, removed after it: a launch a test kills
    // on purpose (or one the machine's load kills) cannot leave one in the temp folder.
    XDG_RUNTIME_DIR: tempDir("runtime-"),
    ...extra,
  });
  return {
    env,
    /** The events every stand-in of this environment wrote, oldest first ([] when none). */
    events(): FakeVllmEvent[] {
      let text = "";
      try {
        text = readFileSync(join(dirname(recordPath), "stand-in-events.jsonl"), "utf8");
      } catch {}
      return text
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as FakeVllmEvent);
    },
    /** What the stand-in recorded, or undefined when it never ran. */
    record(): FakeVllmRecord | undefined {
      try {
        return JSON.parse(readFileSync(recordPath, "utf8")) as FakeVllmRecord;
      } catch {
        return undefined;
      }
    },
  };
}

export function startCli(args: readonly string[], env: NodeJS.ProcessEnv, cwd?: string): ManagedProcess {
  const proc = startProcess(process.execPath, [CLI, ...args], { env, ...(cwd === undefined ? {} : { cwd }) });
  // A test that fails stops the CLI in its afterEach: a launch needs its --stop-timeout (5 s in the tests) to
  // stop its instances and remove its runtime directory; a SIGKILL at testing's 3 s default would leave it.
  return { ...proc, stop: (graceMs = 15_000) => proc.stop(graceMs) };
}

/** Whether a process id is still alive. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The exit code within `withinMs`, or "still running": a test states how long an ending may take. */
export async function exitOf(proc: ManagedProcess, withinMs: number): Promise<number | string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve("still running"), withinMs);
  });
  try {
    return await Promise.race([proc.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `studio-serve launch full acme/m` on a free port with the stand-in vLLM (its behaviour set by `extraEnv`),
 * added to `running` so the test file stops it.
 */
export async function launchWithStandIn(
  running: ManagedProcess[],
  extraEnv: NodeJS.ProcessEnv,
  more: readonly string[] = [],
) {
  const port = await getFreePort();
  const fake = fakeVllmEnv(extraEnv);
  const proc = startCli(["launch", "full", "acme/m", "--port", String(port), ...more], fake.env);
  running.push(proc);
  return { proc, fake, port };
}
