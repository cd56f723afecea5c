import { percentile } from "./metrics.js";
import { type LoadStage, stageBoundariesMs } from "./stages.js";
import type { TimelineRequest } from "./timeline.js";

// What each stage of a staged run did, as a table has room for: the requests it scheduled, how they ended and
// their time to first token. A request belongs to the stage that scheduled it (requestStages), however late
// it was answered: the high stage's queue shows in the high stage's TTFT, even when it drains in the next.

/** A request of a staged run: what the timeline reads of it, and its stage (counted from 1). */
export type StagedRequest = TimelineRequest & { readonly stage: number };

/** One stage of the run and what its requests did. */
export interface StageSummary {
  /** Counted from 1, as `--stages` lists them. */
  readonly stage: number;
  /** The requests per second it offered, and when it started and for how long, in ms from the run's start. */
  readonly rate: number;
  readonly startMs: number;
  readonly durationMs: number;
  /** Its requests sent; each was answered or failed by the run's end (Ctrl-C fails those still open). */
  readonly sent: number;
  readonly answered: number;
  readonly failed: number;
  /** TTFT percentiles of its answered requests (the bench metrics' rule); null when none was answered. */
  readonly ttftP50Ms: number | null;
  readonly ttftP95Ms: number | null;
}

/** One summary per stage, in order; a request naming no stage of `stages` is left out. */
export function summarizeStages(
  stages: readonly LoadStage[],
  requests: readonly StagedRequest[],
): StageSummary[] {
  const bounds = stageBoundariesMs(stages);
  const byStage = stages.map(() => ({ sent: 0, failed: 0, ttfts: [] as number[] }));
  for (const request of requests) {
    const tally = byStage[request.stage - 1];
    if (tally === undefined) continue;
    tally.sent++;
    if (request.ok) tally.ttfts.push(request.ttftMs);
    else tally.failed++;
  }
  return stages.map((stage, index) => {
    const { sent, failed, ttfts } = byStage[index] as (typeof byStage)[number];
    return {
      stage: index + 1,
      rate: stage.rate,
      startMs: bounds[index] as number,
      durationMs: stage.durationMs,
      sent,
      answered: ttfts.length,
      failed,
      ttftP50Ms: ttfts.length === 0 ? null : percentile(ttfts, 50),
      ttftP95Ms: ttfts.length === 0 ? null : percentile(ttfts, 95),
    };
  });
}
