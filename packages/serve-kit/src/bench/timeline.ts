import { type BenchRequestRecord, percentile } from "./metrics.js";

// A run second by second, to watch a fleet follow its load: what was sent, answered and failed in each
// second, the time to first token of the answers that began in it, and (when the fleet was sampled) how many
// instances served and how many requests waited. Times are ms from the run's start.

/** What the timeline reads of a request: when it was sent, its first token, its end, whether it completed. */
export type TimelineRequest = Pick<BenchRequestRecord, "ok" | "startMs" | "ttftMs" | "latencyMs">;

/**
 * The fleet read at one time: instances serving, and requests waiting over all of them. Null is unknown:
 * the queue when an instance's page could not be read (a sum without it would be a guess, not 0), both when
 * the fleet could not be read at all; an unknown sample ends the one before it, as Prometheus' staleness
 * marker ends a series that vanished, rather than let it stand for the lookback.
 */
export interface FleetSecondSample {
  readonly timeMs: number;
  readonly serving: number | null;
  readonly queue: number | null;
}

/** One second of the run, [second, second + 1) s from its start. */
export interface TimelineRow {
  readonly second: number;
  /** Requests sent in this second. */
  readonly sent: number;
  /** Requests that completed in this second. */
  readonly answered: number;
  /** Requests that failed in this second (when their failure came). */
  readonly failed: number;
  /** TTFT percentiles of the completed requests whose first token came in this second; null when none did. */
  readonly ttftP50Ms: number | null;
  readonly ttftP95Ms: number | null;
  /** The fleet as last sampled by the end of this second; null without a sample (or none that recent). */
  readonly serving: number | null;
  readonly queue: number | null;
}

/** A sample older than this says nothing of a second (Prometheus' default lookback delta, 5 minutes). */
export const FLEET_LOOKBACK_MS = 300_000;
/** The timeline covers at most this many seconds; an event past it (a clock gone wrong) is left out. */
export const MAX_TIMELINE_SECONDS = 2 * 86_400;

/**
 * One row per second, from 0 to the last second with an event (or to `durationMs`, when longer). A value is
 * counted in the second it happened: a request's sending, its first token (TTFT is a measurement taken then,
 * as vLLM's histogram and k6's time series record it), its end. TTFT percentiles follow the bench metrics'
 * rule (numpy's linear interpolation). The fleet figures are the last sample at or before the end of the
 * second, as a Prometheus instant query reads a gauge, within `FLEET_LOOKBACK_MS`.
 */
export function buildTimeline(
  requests: readonly TimelineRequest[],
  fleet: readonly FleetSecondSample[] = [],
  durationMs = 0,
): TimelineRow[] {
  const seconds = timelineLength(requests, fleet, durationMs);
  const sent = new Array<number>(seconds).fill(0);
  const answered = new Array<number>(seconds).fill(0);
  const failed = new Array<number>(seconds).fill(0);
  const ttfts: number[][] = Array.from({ length: seconds }, () => []);
  const at = (ms: number) => {
    const second = Math.floor(ms / 1000);
    return second >= 0 && second < seconds ? second : undefined;
  };
  for (const request of requests) {
    const sentAt = at(request.startMs);
    if (sentAt !== undefined) sent[sentAt] = (sent[sentAt] ?? 0) + 1;
    const endAt = at(request.startMs + request.latencyMs);
    const ends = request.ok ? answered : failed;
    if (endAt !== undefined) ends[endAt] = (ends[endAt] ?? 0) + 1;
    const firstTokenAt = request.ok ? at(request.startMs + request.ttftMs) : undefined;
    if (firstTokenAt !== undefined) ttfts[firstTokenAt]?.push(request.ttftMs);
  }
  const fleetAt = fleetBySecond(fleet, seconds);
  return sent.map((count, second) => {
    const measured = ttfts[second] ?? [];
    const sample = fleetAt[second];
    return {
      second,
      sent: count,
      answered: answered[second] ?? 0,
      failed: failed[second] ?? 0,
      ttftP50Ms: measured.length === 0 ? null : percentile(measured, 50),
      ttftP95Ms: measured.length === 0 ? null : percentile(measured, 95),
      serving: sample?.serving ?? null,
      queue: sample?.queue ?? null,
    };
  });
}

/** Seconds from 0 to the last event's, or to `durationMs`, within `MAX_TIMELINE_SECONDS`. */
function timelineLength(
  requests: readonly TimelineRequest[],
  fleet: readonly FleetSecondSample[],
  durationMs: number,
): number {
  let lastMs = -1;
  const see = (ms: number) => {
    if (Number.isFinite(ms) && ms < MAX_TIMELINE_SECONDS * 1000 && ms > lastMs) lastMs = ms;
  };
  for (const request of requests) {
    see(request.startMs);
    see(request.startMs + request.latencyMs);
  }
  for (const sample of fleet) see(sample.timeMs);
  const fromEvents = lastMs < 0 ? 0 : Math.floor(lastMs / 1000) + 1;
  const fromDuration = Math.min(MAX_TIMELINE_SECONDS, Math.ceil(Math.max(0, durationMs) / 1000));
  return Math.max(fromEvents, fromDuration);
}

/** For each second, the last sample taken before its end and within the lookback, or undefined. */
function fleetBySecond(fleet: readonly FleetSecondSample[], seconds: number) {
  const sorted = [...fleet].sort((a, b) => a.timeMs - b.timeMs);
  const bySecond: (FleetSecondSample | undefined)[] = [];
  let next = 0;
  let last: FleetSecondSample | undefined;
  for (let second = 0; second < seconds; second++) {
    const endMs = (second + 1) * 1000;
    while (next < sorted.length && (sorted[next] as FleetSecondSample).timeMs < endMs) {
      last = sorted[next];
      next++;
    }
    bySecond.push(last !== undefined && endMs - last.timeMs <= FLEET_LOOKBACK_MS ? last : undefined);
  }
  return bySecond;
}

const CSV_COLUMNS = "second,sent,answered,failed,ttft_p50_ms,ttft_p95_ms,serving,queue";

/** The timeline as CSV, one row a second under a header; an unknown figure is an empty field. */
export function timelineCsv(rows: readonly TimelineRow[]): string {
  const ms = (value: number | null) => (value === null ? "" : String(Math.round(value * 10) / 10));
  const count = (value: number | null) => (value === null ? "" : String(value));
  const lines = rows.map((row) =>
    [
      row.second,
      row.sent,
      row.answered,
      row.failed,
      ms(row.ttftP50Ms),
      ms(row.ttftP95Ms),
      count(row.serving),
      count(row.queue),
    ].join(","),
  );
  return `${[CSV_COLUMNS, ...lines].join("\n")}\n`;
}
