import { execFileSync } from "node:child_process";
import { type ManagedProcess, waitForOutput, writeStandInNvidiaSmi } from "@finetune-studio/testing";
import { startCli, tempDir } from "./cli-process.js";

// A multi-instance launch of the light stand-in vLLM (no Prism; it refuses connections while it loads and
// cuts in-flight requests on SIGTERM, as vLLM does), for the fleet tests.

export const LIGHT_VLLM = { FAKE_VLLM_PRISM: "0", FAKE_VLLM_LOAD_MS: "1500", FAKE_VLLM_ANSWER_MS: "40" };

/** What launch prints once HAProxy answers in front of every instance. */
export const FLEET_READY = /^ready: .* through HAProxy/m;

/**
 * `launch full acme/m --port P --instances N --stop-timeout 5 ...more` (or `launch ...serve` instead of
 * `full acme/m`), added to `running` to be stopped.
 */
export function startFleet(
  running: ManagedProcess[],
  port: number,
  env: NodeJS.ProcessEnv,
  options: { instances?: number | string; more?: readonly string[]; serve?: readonly string[] } = {},
): ManagedProcess {
  const { instances = 2, more = [], serve = ["full", "acme/m"] } = options;
  const args = ["launch", ...serve, "--port", String(port), "--instances", String(instances)];
  const proc = startCli([...args, "--stop-timeout", "5", ...more], env);
  running.push(proc);
  return proc;
}

/** A rolling reload by SIGHUP, done once launch says every instance restarted (a loadThrough trigger). */
export async function reloadBySighup(proc: ManagedProcess): Promise<void> {
  proc.child.kill("SIGHUP");
  await waitForOutput(proc, /reload: done, every instance restarted/, 150_000);
}

/** Processes of a launch still alive: a stand-in vLLM on one of `ports`, or HAProxy on its runtime directory. */
export function leftOver(ports: readonly number[], dir: string): string[] {
  const out = execFileSync("ps", ["-e", "-o", "pid=,args="], { encoding: "utf8" });
  return out
    .split("\n")
    .filter(
      (line) =>
        line.includes(dir) || ports.some((port) => new RegExp(`fake-vllm.*--port ${port}( |$)`).test(line)),
    );
}

/**
 * A PATH directory with an `nvidia-smi -L` that lists `count` GPUs, and whose `--query-compute-apps` says a
 * process (a fine-tuning job) holds memory on each GPU of `busy`.
 */
export function smiListing(count: number, busy: readonly number[] = []): string {
  const bin = tempDir("smi-");
  writeStandInNvidiaSmi(bin, count, busy);
  return bin;
}
