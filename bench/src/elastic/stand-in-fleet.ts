// An elastic launch (`studio-serve launch --instances MIN..MAX`) over the CLI's stand-in vLLM with vLLM's
// capacity model (each instance runs --max-num-seqs requests at once, FAKE_VLLM_TOKEN_MS a token, and takes
// FAKE_VLLM_LOAD_MS to load), on four stand-in GPUs that a stand-in nvidia-smi lists: what the CLI's
// end-to-end tests run, here under a longer load.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  getFreePortFollowedBy,
  type ManagedProcess,
  startProcess,
  waitForOutput,
  writeStandInNvidiaSmi,
} from "@finetune-studio/testing";
import { STUDIO_SERVE } from "../cli-path.js";

const STAND_IN_BIN = fileURLToPath(new URL("../../../packages/cli/src/test/fixtures/bin", import.meta.url));
export const GPUS = 4;
export const MODEL = "bench/elastic";

/** The stand-in's timing: two requests at once (--max-num-seqs 2), 25 ms a token, 3 s to load. */
export const STAND_IN_TIMING = { FAKE_VLLM_PRISM: "0", FAKE_VLLM_TOKEN_MS: "25", FAKE_VLLM_LOAD_MS: "3000" };
export const MAX_NUM_SEQS = 2;

export interface StandInFleet {
  readonly proc: ManagedProcess;
  readonly port: number;
  /** The launch's runtime directory, where its state.json says each instance's state. */
  readonly dir: string;
  /** A directory of this run's own, removed with it. */
  readonly scratch: string;
  /** The environment a command on this launch needs (`bench --launch P` finds it by its runtime directory). */
  readonly env: NodeJS.ProcessEnv;
  /** The stand-ins' events (asleep, awake, wake-failed, chat-while-asleep), oldest first. */
  events(): { event: string; port?: number }[];
  /** Stops the launch with its whole group, and removes the temp directory. */
  stop(): Promise<void>;
}

/** `launch full MODEL --instances RANGE --max-num-seqs 2 ...more`, ready once HAProxy answers. */
export async function startStandInFleet(
  instances: string,
  more: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<StandInFleet> {
  const temp = mkdtempSync(join(tmpdir(), "bench-elastic-"));
  const record = join(temp, "record.json");
  const runtime = join(temp, "runtime");
  mkdirSync(runtime, { mode: 0o700 });
  const port = await getFreePortFollowedBy(GPUS + 1);
  const args = ["launch", "full", MODEL, "--port", String(port), "--instances", instances];
  const proc = startProcess(
    process.execPath,
    [STUDIO_SERVE, ...args, "--max-num-seqs", String(MAX_NUM_SEQS), "--stop-timeout", "5", ...more],
    {
      env: {
        ...process.env,
        ...STAND_IN_TIMING,
        ...env,
        PATH: `${smiListing(temp)}:${STAND_IN_BIN}:${dirname(process.execPath)}:${process.env.PATH ?? ""}`,
        FAKE_VLLM_NODE: process.execPath,
        FAKE_VLLM_RECORD: record,
        XDG_RUNTIME_DIR: runtime,
      },
    },
  );
  const stop = async () => {
    await proc.stop(30_000);
    rmSync(temp, { recursive: true, force: true });
  };
  try {
    await waitForOutput(proc, /^ready: .* through HAProxy/m, 120_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    proc,
    port,
    scratch: temp,
    env: { ...process.env, XDG_RUNTIME_DIR: runtime },
    dir: join(runtime, `studio-serve-${process.getuid?.() ?? 0}-${port}`),
    events: () => readEvents(join(temp, "stand-in-events.jsonl")),
    stop,
  };
}

/** A PATH directory whose `nvidia-smi -L` lists GPUS GPUs, none of them used by another process. */
function smiListing(temp: string): string {
  const bin = join(temp, "smi");
  mkdirSync(bin);
  writeStandInNvidiaSmi(bin, GPUS);
  return bin;
}

function readEvents(path: string): { event: string; port?: number }[] {
  let text = "";
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as { event: string; port?: number });
}
