// A bench run's report: the table (or one JSON document) on stdout, the files of --out, and the exit code.
import { join } from "node:path";
import { escapeForTerminal, jsonForTerminal } from "@finetune-studio/internal";
import { capacityFromSweep, latencyChartSvg } from "@finetune-studio/serve-kit";
import { timelineCsv, timelineSvg } from "@finetune-studio/serve-kit/internal";
import { ExitCode } from "../shared/exit-codes.js";
import type { CliIo } from "../shared/io.js";
import { FileWriteError, writeFilesTogether } from "../shared/safe-files.js";
import type { Measured } from "./measure-levels.js";
import type { StagedResult } from "./measure-stages.js";
import type { MeasuredFleet } from "./measured-fleet.js";
import type { BenchRun } from "./options.js";
import type { PrefixCacheResult } from "./prefix-cache.js";
import {
  formatBenchTable,
  formatCapacity,
  formatFailureReasons,
  formatPrefixCache,
  formatStages,
  loadText,
} from "./report.js";

/** What a run measured, and how it is to be shown. */
export interface BenchResult {
  measured: readonly Measured[];
  plan: BenchRun;
  url: string;
  model: string;
  /** What a sweep's capacity measured: one instance, or a launch's fleet of N behind its front door. */
  fleet: MeasuredFleet;
  /** Ctrl-C ended the run: what was measured is reported, and the exit code says so. */
  interrupted: boolean;
  prefixCache: PrefixCacheResult | undefined;
  /** A --stages run: each stage's summary and the timeline. */
  staged: StagedResult | undefined;
  json: boolean;
  out: string | undefined;
}

/** Prints the result (and writes --out's files); the exit code: interrupted, nothing completed, or ok. */
export function reportBench(result: BenchResult, io: CliIo): number {
  const { measured, plan, prefixCache } = result;
  const capacity = capacityOf(measured, plan, result.fleet);
  const document = summaryOf(result, capacity);
  if (result.json) io.out(`${jsonForTerminal(document, 2)}\n`);
  else {
    io.out(formatBenchTable(measured));
    io.out(formatFailureReasons(measured));
    if (result.staged !== undefined) io.out(formatStages(result.staged.summaries));
    if (prefixCache !== undefined) io.out(formatPrefixCache(prefixCache));
    if (capacity !== undefined) {
      io.out(formatCapacity(capacity, plan.loadName, plan.targetRps, result.fleet.name));
    }
  }
  if (result.out !== undefined && !writeResults(result.out, resultFiles(result, document), io)) {
    return ExitCode.Failure;
  }
  if (result.interrupted) return ExitCode.Interrupted;
  return measured.some((level) => level.metrics.completed > 0) ? ExitCode.Ok : ExitCode.Failure;
}

/** A sweep with --slo sizes capacity: only then does it matter what it measured (see measuredFleet). */
export function sizesCapacity(plan: BenchRun): boolean {
  return plan.slo !== undefined && plan.levels.length > 1;
}

/** A sweep with --slo: the highest load served (and the instances --target-rps needs). */
function capacityOf(measured: readonly Measured[], plan: BenchRun, fleet: MeasuredFleet) {
  if (!sizesCapacity(plan) || measured.length <= 1) return undefined;
  return capacityFromSweep(measured, {
    attainment: plan.attainment,
    instances: fleet.instances,
    ...(plan.targetRps === undefined ? {} : { targetRps: plan.targetRps }),
  });
}

/** The JSON document of --json and summary.json: stable field names. */
function summaryOf(result: BenchResult, capacity: ReturnType<typeof capacityOf>) {
  const { plan, prefixCache, staged } = result;
  return {
    url: result.url,
    model: result.model,
    loadName: plan.loadName,
    slo: plan.slo ?? null,
    interrupted: result.interrupted,
    ...(prefixCache === undefined ? {} : { prefixCache }),
    ...(staged === undefined ? {} : { stages: staged.summaries, timeline: staged.timeline }),
    levels: result.measured.map(({ label, asked, reachedConcurrency, metrics, late }) => ({
      label,
      load: loadText(asked),
      reachedConcurrency,
      metrics,
      generatorLate: late,
    })),
    capacity:
      capacity === undefined
        ? null
        : {
            ...capacity,
            highestLoad: capacity.highestLoad === null ? null : loadText(capacity.highestLoad),
            firstFailingLoad: capacity.firstFailingLoad === null ? null : loadText(capacity.firstFailingLoad),
          },
  };
}

/**
 * --out DIR's files: the per-request records, the summary, for a sweep the latency chart, for a staged run
 * the timeline (CSV and chart).
 */
function resultFiles(result: BenchResult, document: object): { name: string; text: string }[] {
  const { measured, staged } = result;
  const records = measured.flatMap((level) =>
    level.records.map((record) => JSON.stringify({ load: loadText(level.asked), ...record })),
  );
  const title = `bench ${measured[0]?.label ?? ""} against ${result.url}`;
  return [
    { name: "records.jsonl", text: records.length === 0 ? "" : `${records.join("\n")}\n` },
    { name: "summary.json", text: `${JSON.stringify(document, null, 2)}\n` },
    ...(measured.length > 1
      ? [{ name: "latency.svg", text: latencyChartSvg(measured, result.plan.loadName) }]
      : []),
    ...(staged === undefined
      ? []
      : [
          { name: "timeline.csv", text: timelineCsv(staged.timeline) },
          { name: "timeline.svg", text: timelineSvg(staged.timeline, { stages: staged.stages, title }) },
        ]),
  ];
}

/** --out DIR: every file written, or none. */
function writeResults(dir: string, files: readonly { name: string; text: string }[], io: CliIo): boolean {
  try {
    writeFilesTogether(dir, files, "shared"); // Results, no secret: others may read them.
  } catch (error) {
    if (!(error instanceof FileWriteError)) throw error;
    io.err(`studio-serve: --out: ${escapeForTerminal(error.message)}\n`);
    return false;
  }
  io.err(`studio-serve: wrote ${files.map((file) => join(dir, file.name)).join(", ")}\n`);
  return true;
}
