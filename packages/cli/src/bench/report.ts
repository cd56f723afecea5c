import { escapeForTerminal } from "@finetune-studio/internal";
import type { BenchMetrics, CapacityAnswer, LatencySummary } from "@finetune-studio/serve-kit";
import type { StageSummary } from "@finetune-studio/serve-kit/internal";
import type { LoadShape } from "./run-load.js";

const ms = (value: number) =>
  value >= 10_000 ? `${(value / 1000).toFixed(1)} s` : `${Math.round(value)} ms`;
/** No figure without a completed request that measured it. */
const pair = (summary: LatencySummary | null) =>
  summary === null ? "n/a" : `${ms(summary.median)} / ${ms(summary.p99)}`;

/** A load as written on the command line: an infinite rate is `inf` (JSON has no Infinity). */
export const loadText = (load: number): number | "inf" => (Number.isFinite(load) ? load : "inf");

/** A level's name, with the concurrency it reached when that fell short of the one asked for. */
export function levelLabel(label: string, shape: LoadShape, reachedConcurrency: number): string {
  return shape.kind === "concurrency" && reachedConcurrency < shape.concurrency
    ? `${label} (reached ${reachedConcurrency})`
    : label;
}

/**
 * Before a run: each level whose concurrency the requests cannot reach (a run of N requests never has more
 * than N open), so the table's "(reached N)" comes as no surprise.
 */
export function unreachableLevels(
  levels: readonly { label: string; shape: LoadShape }[],
  requests: number,
): string[] {
  return levels.flatMap(({ label, shape }) => {
    const asked =
      shape.kind === "concurrency"
        ? shape.concurrency
        : shape.kind === "rate"
          ? shape.maxConcurrency
          : undefined;
    return asked !== undefined && asked > requests
      ? [
          `${label}: --requests ${requests} never has more than ${requests} open at once; give --requests ${asked} or more (or --duration) to reach ${asked}`,
        ]
      : [];
  });
}

/** One row per load level: throughput, the latencies (p50 / p99) and what failed or met the SLOs. */
export function formatBenchTable(rows: readonly { label: string; metrics: BenchMetrics }[]): string {
  const headers = [
    "LOAD",
    "REQ/S",
    "OUT TOK/S",
    "TTFT p50/p99",
    "TPOT p50/p99",
    "ITL p50/p99",
    "E2E p50/p99",
    "OK",
    "FAILED",
    "GOOD",
  ];
  const cells = rows.map(({ label, metrics }) => [
    label,
    metrics.requestThroughput.toFixed(2),
    metrics.outputThroughput.toFixed(1),
    pair(metrics.ttftMs),
    pair(metrics.tpotMs),
    pair(metrics.itlMs),
    pair(metrics.e2elMs),
    String(metrics.completed),
    metrics.failed === 0
      ? "0"
      : `${metrics.failed} (${Object.entries(metrics.failures)
          .map(([kind, count]) => `${kind} ${count}`)
          .join(", ")})`,
    metrics.goodput === null ? "-" : `${(metrics.goodput.share * 100).toFixed(1)}%`,
  ]);
  return formatTable(headers, cells);
}

/**
 * A staged run, stage by stage: its rate, when it ran, its requests and how they ended, their TTFT
 * (p50 / p95, as the timeline has them); a request counts in the stage that scheduled it.
 */
export function formatStages(summaries: readonly StageSummary[]): string {
  const seconds = (value: number) => `${Math.round(value / 100) / 10} s`;
  const ttft = (p50: number | null, p95: number | null) =>
    p50 === null || p95 === null ? "n/a" : `${ms(p50)} / ${ms(p95)}`;
  const headers = ["STAGE", "REQ/S", "FROM", "FOR", "SENT", "ANSWERED", "FAILED", "TTFT p50/p95"];
  const cells = summaries.map((stage) => [
    String(stage.stage),
    String(stage.rate),
    seconds(stage.startMs),
    seconds(stage.durationMs),
    String(stage.sent),
    String(stage.answered),
    String(stage.failed),
    ttft(stage.ttftP50Ms, stage.ttftP95Ms),
  ]);
  return formatTable(headers, cells);
}

/** Columns under their headers, the first to the left and the others to the right, two spaces apart. */
function formatTable(headers: readonly string[], cells: readonly (readonly string[])[]): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...cells.map((row) => row[column]?.length ?? 0)),
  );
  const line = (row: readonly string[]) =>
    row
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join("  ")
      .trimEnd();
  return `${[line(headers), ...cells.map(line)].join("\n")}\n`;
}

/** Why requests failed, the most frequent reasons of each level that had failures, for the terminal. */
export function formatFailureReasons(rows: readonly { label: string; metrics: BenchMetrics }[]): string {
  const lines = rows.flatMap(({ label, metrics }) => {
    if (metrics.failed === 0) return [];
    const total = metrics.completed + metrics.failed;
    const shown = metrics.failureReasons.reduce((sum, { count }) => sum + count, 0);
    return [
      `${label}: ${metrics.failed} of ${total} requests failed${metrics.completed === 0 ? " (no latency measured)" : ""}:`,
      ...metrics.failureReasons.map(({ reason, count }) => `  ${count} × ${escapeForTerminal(reason)}`),
      ...(shown < metrics.failed
        ? [`  ${metrics.failed - shown} × other reasons (records.jsonl with --out)`]
        : []),
    ];
  });
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}

/**
 * What the sweep says about what it measured (one instance, or a launch's fleet of N together) and per
 * instance, and the fleet a target needs, sized per instance.
 */
export function formatCapacity(
  answer: CapacityAnswer,
  loadName: string,
  targetRps: number | undefined,
  measured = "one instance",
): string {
  const share = `${Math.round(answer.attainment * 100)}% of requests`;
  if (answer.highestLoad === null) {
    return `capacity: even the lowest ${loadName} tried missed the SLOs for more than ${100 - Math.round(answer.attainment * 100)}% of requests; try lower loads\n`;
  }
  const knee =
    answer.firstFailingLoad === null
      ? "every load tried met them: the knee lies higher, extend the sweep"
      : `at ${loadText(answer.firstFailingLoad)} they no longer held`;
  const rps = (answer.requestsPerSecond ?? 0).toFixed(2);
  const perInstance = (answer.perInstanceRequestsPerSecond ?? 0).toFixed(2);
  const fleet = answer.measuredInstances > 1;
  const lines = [
    `capacity: ${measured} serves ${loadName} ${loadText(answer.highestLoad)} within the SLOs for ${share} (${rps} good req/s${fleet ? ` together, ${perInstance} per instance` : ""}); ${knee}`,
  ];
  if (targetRps !== undefined && answer.instances !== null) {
    lines.push(
      `for ${targetRps} req/s: launch --instances ${answer.instances} (or replicaCount ${answer.instances}), each kept ${Math.round(answer.headroom * 100)}% below its measured capacity${fleet ? ` (${perInstance} good req/s per instance)` : ""}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/** The run's prefix-cache hit rate, next to its TTFT: the figure and what it covers, or why there is none. */
export function formatPrefixCache(result: {
  hitRate: number | null;
  tokens: number;
  instances: readonly string[];
  unknown: string | null;
}): string {
  const where = `${result.instances.length} instance${result.instances.length === 1 ? "" : "s"}`;
  if (result.hitRate === null) {
    return `prefix-cache hit rate: unknown: ${escapeForTerminal(result.unknown ?? "not read")}\n`;
  }
  return `prefix-cache hit rate: ${(result.hitRate * 100).toFixed(1)}% of ${result.tokens} prompt tokens looked up, over ${where} (vLLM's /metrics before and after the run)\n`;
}
