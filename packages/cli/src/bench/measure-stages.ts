// A staged run (--stages): its one level sent stage after stage, each stage's start said on the progress
// line, and with --launch P the fleet sampled beside it; then what each stage did and the run second by
// second, for the report and --out's timeline.
import type { ChatCompletionRequest } from "@finetune-studio/client";
import {
  buildTimeline,
  type FleetSecondSample,
  type LoadStage,
  type StagedRequest,
  type StageSummary,
  stageBoundariesMs,
  summarizeStages,
  type TimelineRow,
} from "@finetune-studio/serve-kit/internal";
import type { CliIo } from "../shared/io.js";
import { runtimeDirOf } from "../supervise/runtime-dir.js";
import { sampleFleet } from "./fleet-sampler.js";
import { type BenchTarget, countOf, type Measured, measureLevel } from "./measure-levels.js";
import type { BenchRun, LoadLevel } from "./options.js";
import type { ProgressLine } from "./progress.js";
import { runLoad } from "./run-load.js";

/** What a staged run adds to the report: each stage's summary and the timeline, one row a second. */
export interface StagedResult {
  stages: readonly LoadStage[];
  summaries: StageSummary[];
  timeline: TimelineRow[];
}

/** The staged level, with the fleet of `launch` (a port) sampled once a second while it runs. */
export async function measureStages(
  plan: BenchRun,
  requests: readonly ChatCompletionRequest[],
  target: BenchTarget,
  launch: number | undefined,
  io: CliIo,
): Promise<{ measured: Measured; staged: StagedResult }> {
  const level = plan.levels[0] as LoadLevel;
  const stages = plan.stages ?? [];
  let samples: FleetSecondSample[] = [];
  let elapsedMs = 0;
  const measured = await measureLevel(level, plan, io, async (onRecord, progress) => {
    const originMs = performance.now();
    const sampler =
      launch === undefined
        ? undefined
        : sampleFleet({
            dir: runtimeDirOf(launch, io.env),
            name: `--launch ${launch}`,
            originMs,
            warn: (text) => progress.note(text),
          });
    const marks = markStages(stages, originMs, progress);
    try {
      return await runLoad({
        chat: target.chat,
        requests,
        count: countOf(level, plan),
        shape: level.shape,
        timeoutMs: plan.timeoutMs,
        signal: target.signal,
        secrets: target.apiKey === undefined ? [] : [target.apiKey],
        onRecord,
        startedAt: originMs,
      });
    } finally {
      marks.clear();
      samples = (await sampler?.stop()) ?? [];
      elapsedMs = performance.now() - originMs;
    }
  });
  const staged = measured.records.filter((record): record is StagedRequest & Measured["records"][number] =>
    Number.isInteger(record.stage),
  );
  // The stages' length, or less when Ctrl-C ended the run sooner: no row for seconds never reached.
  const durationMs = Math.min(stageBoundariesMs(stages).at(-1) ?? 0, elapsedMs);
  return {
    measured,
    staged: {
      stages,
      summaries: summarizeStages(stages, staged),
      timeline: buildTimeline(measured.records, samples, durationMs),
    },
  };
}

/** Says each stage's start on the progress line when it comes (timed from `originMs`); `clear` stops it. */
function markStages(stages: readonly LoadStage[], originMs: number, progress: ProgressLine) {
  const bounds = stageBoundariesMs(stages);
  const timers = stages.map((stage, index) => {
    const where = `stage ${index + 1} of ${stages.length}`;
    const text = `bench: ${where} at ${seconds(bounds[index] as number)}: ${stage.rate} req/s for ${seconds(stage.durationMs)}`;
    const delay = Math.max(0, originMs + (bounds[index] as number) - performance.now());
    return setTimeout(() => progress.note(text, where), delay);
  });
  return { clear: () => timers.forEach(clearTimeout) };
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
