import { escapeForTerminal } from "@finetune-studio/internal";
import type { LatencyPercentiles, SloAttainment } from "@finetune-studio/serve-kit";
import type { InstanceStatus } from "./status-probe.js";

const HEADERS = [
  "INSTANCE",
  "STATE",
  "RUN",
  "WAIT",
  "KV CACHE",
  "PREFIX HIT",
  "TOK/S IN",
  "TOK/S OUT",
  "TTFT p50/p95",
  "E2E p50/p95",
  "PREEMPT",
];
const RIGHT = new Set([2, 3, 4, 5, 6, 7, 10]);
const NONE = "-";

/**
 * Every string in the table that a server gave (model ids, adapter names, reasons quoting its answer) goes
 * through `escapeForTerminal`: a model id can hold ESC, C1 or bidirectional characters.
 *
 * The status of each instance for people: one row of figures, then a line naming its models and adapters
 * (or why it is not up). Rates and percentiles cover the time between the two scrapes.
 */
export function formatStatusTable(statuses: readonly InstanceStatus[], objective?: number): string {
  const rows = statuses.map(figures);
  const widths = HEADERS.map((header, column) =>
    // A row that is only a reason (three cells) does not widen the columns it runs across.
    Math.max(
      header.length,
      ...rows.map((row) => (row.length > 3 || column < 2 ? (row[column]?.length ?? 0) : 0)),
    ),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => {
        if (cells.length === 3 && column === 2) return cell; // a reason runs on past the columns
        const width = widths[column] ?? 0;
        return RIGHT.has(column) ? cell.padStart(width) : cell.padEnd(width);
      })
      .join("  ")
      .trimEnd();
  const out = [line(HEADERS)];
  statuses.forEach((status, index) => {
    out.push(line(rows[index] ?? []));
    const note = secondLine(status);
    if (note !== "") out.push(`  ${note}`);
    const slo = sloLine(status, objective);
    if (slo !== "") out.push(`  ${slo}`);
  });
  return `${out.join("\n")}\n`;
}

function figures(status: InstanceStatus): string[] {
  const metrics = status.metrics;
  if (status.state !== "up") return [status.url, status.state, escapeForTerminal(status.detail ?? "")];
  if (metrics === null || !metrics.readable)
    return [status.url, status.state, ...HEADERS.slice(2).map(() => NONE)];
  return [
    status.url,
    status.state,
    count(metrics.requestsRunning),
    count(metrics.requestsWaiting),
    share(metrics.kvCacheUsage),
    // vLLM's prefix-cache hits over lookups, in tokens, between the two reads (else since it started).
    share(metrics.prefixCacheHitRate?.share ?? null),
    rate(metrics.promptTokensPerSecond),
    rate(metrics.generationTokensPerSecond),
    percentiles(metrics.timeToFirstToken),
    percentiles(metrics.e2eLatency),
    count(metrics.preemptions),
  ];
}

function secondLine(status: InstanceStatus): string {
  return escapeForTerminal(secondLineText(status));
}

function secondLineText(status: InstanceStatus): string {
  if (status.state !== "up") return "";
  const parts: string[] = [];
  if (status.models !== null) {
    const served = status.models.filter((model) => model.parent === null).map((model) => model.id);
    const adapters = status.models
      .filter((model) => model.parent !== null)
      .map((model) => `${model.id} (on ${model.parent})`);
    parts.push(`serves ${served.length === 0 ? NONE : served.join(", ")}`);
    if (adapters.length > 0) parts.push(`adapters ${adapters.join(", ")}`);
  }
  const metrics = status.metrics;
  if (metrics?.readable && (metrics.runningAdapters.length > 0 || metrics.maxLoras !== null)) {
    parts.push(
      `running adapters ${metrics.runningAdapters.length === 0 ? "none" : metrics.runningAdapters.join(", ")}`,
    );
  }
  if (metrics?.readable && metrics.restarted) parts.push("restarted since the last scrape");
  if (status.detail !== null) parts.push(status.detail);
  return parts.join("; ");
}

/**
 * `SLO between reads: ttft<=500ms 90.0% (9 of 10), tpot<=50ms 100.0% (10 of 10); objective 0.99: missed`:
 * the share of the requests finished between the two reads within each target, counted up to vLLM's bucket
 * at or below it (as the Prometheus rules count it: never overstated).
 */
function sloLine(status: InstanceStatus, objective: number | undefined): string {
  const metrics = status.metrics;
  if (status.state !== "up" || !metrics?.readable || metrics.sloAttainment === undefined) return "";
  if (metrics.sloAttainment === null) return "SLO: needs two reads (no earlier read of this instance)";
  const shares = metrics.sloAttainment.map(sloShare);
  const known = metrics.sloAttainment.filter((one) => one.share !== null);
  const verdict =
    objective === undefined || known.length === 0
      ? ""
      : `; objective ${objective}: ${known.every((one) => (one.share ?? 0) >= objective) ? "met" : "missed"}`;
  return `SLO between reads: ${shares.join(", ")}${verdict}`;
}

function sloShare(one: SloAttainment): string {
  const name = `${one.slo}<=${one.targetMs}ms`;
  if (one.requests === null) return `${name} ${NONE} (no ${one.slo} histogram)`;
  if (one.share === null) return `${name} ${NONE} (no request finished)`;
  const counted =
    Math.round(one.countedUpToSeconds * 1e6) === Math.round(one.targetMs * 1e3)
      ? ""
      : `, counted up to ${duration(one.countedUpToSeconds)}`;
  return `${name} ${(one.share * 100).toFixed(1)}% (${Math.round(one.within ?? 0)} of ${Math.round(one.requests)}${counted})`;
}

function count(value: number | null): string {
  return value === null ? NONE : String(Math.round(value));
}

function share(value: number | null): string {
  return value === null ? NONE : `${(value * 100).toFixed(1)}%`;
}

function rate(value: number | null): string {
  return value === null ? NONE : value.toFixed(1);
}

function percentiles(value: LatencyPercentiles | null): string {
  return value === null ? NONE : `${duration(value.p50)} / ${duration(value.p95)}`;
}

/** Seconds as people read them: 45 ms, 1.25 s, 2 min 5 s. */
export function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return NONE;
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 60) return `${Number(seconds.toPrecision(3))} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${Math.round(seconds - minutes * 60)} s`;
}
