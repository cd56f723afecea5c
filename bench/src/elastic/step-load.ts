// A step load through a launch's front door with the CLI's own `bench --stages` (Poisson arrivals at each
// stage's rate), as a user watches a fleet follow its load: its per-request records, and when each stage
// began on this process's clock (from the line bench prints as a stage starts), so they line up with the
// fleet's readings.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startProcess } from "@finetune-studio/testing";
import { STUDIO_SERVE } from "../cli-path.js";
import { MODEL } from "./stand-in-fleet.js";

export interface Stage {
  /** Requests per second. */
  readonly rate: number;
  readonly seconds: number;
}

export interface LoadRecord {
  readonly ok: boolean;
  /** Sent, on this process's performance.now() clock. */
  readonly sentMs: number;
  readonly latencyMs: number;
}

export interface StepLoadRun {
  /** Each stage's start, on this process's performance.now() clock. */
  readonly stageStartsMs: readonly number[];
  readonly records: readonly LoadRecord[];
}

/** Each request: about 32 prompt tokens and exactly 40 answer tokens (1 s at 25 ms a token). */
export const REQUEST_SHAPE = ["--input-tokens", "32", "--output-tokens", "40"];
const STAGE_LINE = /^bench: stage (\d+) of \d+ at/gm;

/**
 * Runs `studio-serve bench --launch PORT --stages ...` to its end, its files written in `scratch` (which
 * the caller removes); throws when it fails.
 */
export async function runStepLoad(
  port: number,
  stages: readonly Stage[],
  env: NodeJS.ProcessEnv,
  scratch: string,
): Promise<StepLoadRun> {
  const spec = stages.map((stage) => `${stage.rate}:${stage.seconds}s`).join(",");
  const args = ["bench", "--launch", String(port), "--model", MODEL, "--stages", spec, ...REQUEST_SHAPE];
  const out = join(scratch, "step-load");
  const proc = startProcess(process.execPath, [STUDIO_SERVE, ...args, "--seed", "1", "--out", out], { env });
  const stageStartsMs: number[] = [];
  const watch = setInterval(() => noteStages(proc.output(), stageStartsMs), 20);
  const code = await proc.exited;
  clearInterval(watch);
  noteStages(proc.output(), stageStartsMs);
  if (code !== 0 || stageStartsMs.length !== stages.length) {
    const tail = proc.output().slice(-2000);
    throw new Error(`bench --stages ended with ${code}, ${stageStartsMs.length} stages seen:\n${tail}`);
  }
  const origin = stageStartsMs[0] as number;
  const records = readFileSync(join(out, "records.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const record = JSON.parse(line) as { ok: boolean; startMs: number; latencyMs: number };
      return { ok: record.ok, sentMs: origin + record.startMs, latencyMs: record.latencyMs };
    });
  return { stageStartsMs, records };
}

/** Notes the time each stage's line was first seen in `output` (polled every 20 ms). */
function noteStages(output: string, starts: number[]): void {
  for (const match of output.matchAll(STAGE_LINE)) {
    const index = Number(match[1]) - 1;
    if (starts[index] === undefined) starts[index] = performance.now();
  }
}
