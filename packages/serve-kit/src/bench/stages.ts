import { refuse } from "../internal/validate.js";
import { arrivalTimesMs, seededRandom } from "./schedule.js";

// A load that changes over time, as k6's `stages` and GuideLLM's ramps give one: `R1:D1,R2:D2,...`, each
// stage R requests per second for D (e.g. `2:60s,12:120s,2:120s`: low, high, low). Within a stage, requests
// arrive as vLLM's benchmark schedules them (schedule.ts), one stage after another.

/** One stage: `rate` requests per second for `durationMs`. */
export interface LoadStage {
  readonly rate: number;
  readonly durationMs: number;
}

/** At most this many stages. */
export const MAX_STAGES = 32;
/** The stages last at most a day together. */
export const MAX_STAGES_MS = 24 * 3_600_000;
/** They schedule at most this many requests together (the bound on `bench --requests` too). */
export const MAX_STAGED_REQUESTS = 1_000_000;

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000 } as const;
const STAGE = /^\s*(\d+(?:\.\d+)?)\s*:\s*(\d+(?:\.\d+)?)\s*(s|m|h)\s*$/;
const RULE =
  "must be rate:duration stages separated by commas: a rate in requests per second and a duration with s, m or h (e.g. 2:60s,12:120s,2:120s)";

/** Reads `2:60s,12:2m,2:120s` into stages; a bad one is refused naming `field`, the rule and the text. */
export function parseStages(text: string, field = "--stages"): LoadStage[] {
  if (typeof text !== "string" || text.trim() === "") refuse(field, RULE, text);
  const parts = text.split(",");
  if (parts.length > MAX_STAGES) refuse(field, `must list at most ${MAX_STAGES} stages`, text);
  const stages = parts.map((part, index) => {
    const match = STAGE.exec(part);
    if (match === null) refuse(field, `${RULE}; stage ${index + 1} (${part.trim()}) is not`, text);
    const [, rate, amount, unit] = match as unknown as [string, string, string, keyof typeof UNIT_MS];
    const durationMs = Number(amount) * UNIT_MS[unit];
    if (!(durationMs >= 1000)) {
      refuse(field, `stage ${index + 1} (${part.trim()}) must last at least 1s`, text);
    }
    return { rate: Number(rate), durationMs };
  });
  if (!stages.some((stage) => stage.rate > 0))
    refuse(field, "must send requests in one stage at least", text);
  const totalMs = stages.reduce((sum, stage) => sum + stage.durationMs, 0);
  if (totalMs > MAX_STAGES_MS) refuse(field, "must last at most 24h together", text);
  const requests = stages.reduce((sum, stage) => sum + stageRequests(stage), 0);
  if (requests > MAX_STAGED_REQUESTS) {
    refuse(
      field,
      `must schedule at most ${MAX_STAGED_REQUESTS} requests together (these ask ${requests})`,
      text,
    );
  }
  return stages;
}

/** How many requests a stage sends: its rate times its duration, to the nearest whole request. */
export function stageRequests(stage: LoadStage): number {
  return Math.round((stage.rate * stage.durationMs) / 1000);
}

/** When each stage starts, in ms from the run's start, and (last) when the last one ends. */
export function stageBoundariesMs(stages: readonly LoadStage[]): number[] {
  const bounds = [0];
  for (const stage of stages) bounds.push((bounds[bounds.length - 1] as number) + stage.durationMs);
  return bounds;
}

/**
 * The send time of every request of the stages, in ms from the run's start, in order. Each stage's requests
 * are drawn as `arrivalTimesMs` draws them (burstiness 1: a Poisson process; Infinity: evenly spaced), at the
 * rate that fits its whole-request count into its duration, so the stage's last request goes at its end.
 * Each stage has its own seed, drawn from `seed`: the same seed gives the same schedule.
 */
export function stagedArrivalTimesMs(stages: readonly LoadStage[], burstiness = 1, seed = 0): number[] {
  const random = seededRandom(seed);
  const bounds = stageBoundariesMs(stages);
  return stages.flatMap((stage, index) => {
    const stageSeed = Math.floor(random() * 2 ** 32);
    const count = stageRequests(stage);
    if (count === 0) return [];
    const start = bounds[index] as number;
    const fittedRate = count / (stage.durationMs / 1000);
    return arrivalTimesMs(count, fittedRate, burstiness, stageSeed).map((time) => start + time);
  });
}

/**
 * The stage (counted from 1) of each request `stagedArrivalTimesMs` schedules, in the same order: a
 * stage's last request goes at its end, the very time the next stage starts, so a request's stage is the
 * one that scheduled it, not read back from when it was sent.
 */
export function requestStages(stages: readonly LoadStage[]): number[] {
  return stages.flatMap((stage, index) => new Array<number>(stageRequests(stage)).fill(index + 1));
}
