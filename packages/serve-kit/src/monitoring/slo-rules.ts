import { stringify } from "yaml";
import type { BenchSlo } from "../bench/metrics.js";
import { parseSlo } from "../bench/slo.js";
import { checkKnownKeys, checkObject, refuse } from "../internal/validate.js";
import { checkJobName } from "./prometheus-config.js";
import { eitherName, leRegex } from "./promql.js";
import { VLLM_BUCKETS, VLLM_METRICS } from "./vllm-metric-names.js";

// Service-level objectives on vLLM's latency histograms, as Prometheus recording rules and the
// multi-window, multi-burn-rate alerts of Google's SRE workbook ("Alerting on SLOs", table 5-8).

export interface SloRulesOptions {
  /** The targets, in `bench --slo`'s syntax (`ttft=500ms,tpot=50ms,e2el=10s`) or as bench's parsed form. */
  slo: string | BenchSlo;
  /** The share of requests that must meet each target, above 1 - 1/14.4 (≈ 0.9306) and below 1. Default 0.99. */
  objective?: number;
  /** The scrape job of the vLLM instances, as in `prometheusConfig`. Default `vllm`. */
  jobName?: string;
}

/** The latency each SLO key bounds, and the histogram (both engines' names) that measures it. */
export const SLO_METRICS = {
  ttft: { key: "ttftMs", names: VLLM_METRICS.timeToFirstToken, buckets: VLLM_BUCKETS.timeToFirstToken },
  tpot: { key: "tpotMs", names: VLLM_METRICS.timePerOutputToken, buckets: VLLM_BUCKETS.timePerOutputToken },
  e2el: { key: "e2elMs", names: VLLM_METRICS.e2eLatency, buckets: VLLM_BUCKETS.e2eLatency },
} as const;
export type SloName = keyof typeof SLO_METRICS;

/** The rate windows the rules record: the short and long window of each burn-rate pair. */
export const SLO_WINDOWS = ["5m", "30m", "1h", "6h"] as const;
export type SloWindow = (typeof SLO_WINDOWS)[number];

/** The workbook's two pairs: 2% of a 30-day budget in 1 hour pages; 5% in 6 hours opens a ticket. */
export const SLO_BURN_RATE_ALERTS = [
  {
    alert: "VllmSloBudgetBurningFast",
    long: "1h",
    short: "5m",
    burnRate: 14.4,
    for: "2m",
    severity: "critical",
  },
  {
    alert: "VllmSloBudgetBurningSlowly",
    long: "6h",
    short: "30m",
    burnRate: 6,
    for: "15m",
    severity: "warning",
  },
] as const;

/** Recorded series names: per instance (labels job, instance, slo) and for the fleet (job, slo). */
export const sloSeries = {
  goodRate: (window: SloWindow) => `job_instance_slo:vllm_requests_within_target:rate${window}`,
  totalRate: (window: SloWindow) => `job_instance_slo:vllm_requests:rate${window}`,
  instanceAttainment: (window: SloWindow) =>
    `job_instance_slo:vllm_requests_within_target:ratio_rate${window}`,
  fleetAttainment: (window: SloWindow) => `job_slo:vllm_requests_within_target:ratio_rate${window}`,
};

export interface SloTarget {
  slo: SloName;
  /** The target as given, in milliseconds. */
  targetMs: number;
  /** The largest of vLLM's bucket bounds at or below the target, in seconds: what the rules count up to. */
  countedUpToSeconds: number;
  /** The bucket bounds the rules read (every known bound at or below the target), in seconds. */
  bounds: readonly number[];
}

export const DEFAULT_SLO_OBJECTIVE = 0.99;
const MIN_OBJECTIVE = 1 - 1 / SLO_BURN_RATE_ALERTS[0].burnRate;

/**
 * Reads the targets and finds the buckets each is counted from. A histogram only knows how many requests
 * fell at or below each bound, so a target between two bounds is counted at the lower one: requests between
 * that bound and the target count as missing it. Attainment is never overstated, and is understated by the
 * requests in that gap (set targets on bounds, e.g. ttft=500ms, to count exactly).
 */
export function sloTargets(value: unknown, field = "slo"): SloTarget[] {
  const slo = typeof value === "string" ? parseSlo(value, field) : checkBenchSlo(value, field);
  const targets: SloTarget[] = [];
  for (const [name, metric] of Object.entries(SLO_METRICS) as [SloName, (typeof SLO_METRICS)[SloName]][]) {
    const targetMs = slo[metric.key];
    if (targetMs === undefined) continue;
    // Compared in microseconds, so 0.05 s and 50 ms meet exactly.
    const bounds = metric.buckets.filter((bound) => Math.round(bound * 1e6) <= Math.round(targetMs * 1e3));
    const countedUpTo = bounds.at(-1);
    if (countedUpTo === undefined) {
      refuse(
        field,
        `${name} must be at least ${metric.buckets[0] * 1000}ms, vLLM's smallest ${name} bucket: no request could be counted within ${targetMs}ms`,
        value,
      );
    }
    targets.push({ slo: name, targetMs, countedUpToSeconds: countedUpTo, bounds });
  }
  if (targets.length === 0) refuse(field, "must name at least one of ttft, tpot and e2el", value);
  return targets;
}

function checkBenchSlo(value: unknown, field: string): BenchSlo {
  const input = checkObject(value, field);
  const keys = Object.values(SLO_METRICS).map((metric) => metric.key);
  checkKnownKeys(input, keys, `the SLO (${field})`);
  for (const key of keys) {
    const ms = input[key];
    if (ms !== undefined && !(typeof ms === "number" && Number.isFinite(ms) && ms > 0)) {
      refuse(`${field}.${key}`, "must be a number of milliseconds above 0", ms);
    }
  }
  return input as BenchSlo;
}

export function checkObjective(value: unknown, field = "objective"): number {
  if (value === undefined) return DEFAULT_SLO_OBJECTIVE;
  if (typeof value !== "number" || !(value > MIN_OBJECTIVE && value < 1)) {
    refuse(
      field,
      `must be a share above ${MIN_OBJECTIVE.toFixed(4)} (1 - 1/14.4: below it the fast burn-rate alert could never fire) and below 1, e.g. 0.99`,
      value,
    );
  }
  return value;
}

/** A number without float noise: 14.4 * 0.01 gives 0.144, not 0.14400000000000002. */
function clean(value: number): number {
  return Number(value.toPrecision(12));
}

/** The rule groups: recording rules per window, then the burn-rate alerts. */
export function sloRuleGroups(options: SloRulesOptions): Record<string, unknown>[] {
  const input = checkObject(options, "options");
  checkKnownKeys(input, ["slo", "objective", "jobName"], "the SLO rules");
  const targets = sloTargets(input.slo);
  const objective = checkObjective(input.objective);
  const job = `job="${checkJobName(input.jobName)}"`;
  const byInstance = "by (job, instance)";
  const recording = SLO_WINDOWS.map((window) => ({
    name: `studio-serve-vllm-slo-${window}`,
    rules: [
      ...targets.flatMap((target) => {
        const { names } = SLO_METRICS[target.slo];
        // Buckets are cumulative: the largest bound read at or below the target holds the most requests.
        const within = eitherName(
          names,
          (name) =>
            `max ${byInstance} (sum by (job, instance, le) (rate(${name}_bucket{${job},le=~"${leRegex(target.bounds)}"}[${window}])))`,
        );
        const all = eitherName(names, (name) => `sum ${byInstance} (rate(${name}_count{${job}}[${window}]))`);
        return [
          { record: sloSeries.goodRate(window), expr: within, labels: { slo: target.slo } },
          { record: sloSeries.totalRate(window), expr: all, labels: { slo: target.slo } },
        ];
      }),
      {
        record: sloSeries.instanceAttainment(window),
        expr: `${sloSeries.goodRate(window)} / ${sloSeries.totalRate(window)}`,
      },
      // The fleet's share from every instance's counts, whichever engine each runs.
      {
        record: sloSeries.fleetAttainment(window),
        expr: `sum by (job, slo) (${sloSeries.goodRate(window)}) / sum by (job, slo) (${sloSeries.totalRate(window)})`,
      },
    ],
  }));
  const budget = 1 - objective;
  const alerts = SLO_BURN_RATE_ALERTS.map((pair) => {
    const threshold = clean(pair.burnRate * budget);
    const missed = (window: SloWindow) => `(1 - ${sloSeries.fleetAttainment(window)}) > ${threshold}`;
    return {
      alert: pair.alert,
      // Both windows: the long one proves the burn is real, the short one that it is still going on.
      expr: `${missed(pair.long)} and ${missed(pair.short)}`,
      for: pair.for,
      labels: { severity: pair.severity },
      annotations: {
        summary: `The {{ $labels.slo }} SLO of job {{ $labels.job }} is burning its error budget ${pair.burnRate}x too fast`,
        description: `{{ $value | humanizePercentage }} of requests missed the {{ $labels.slo }} target over the last ${pair.long} and ${pair.short} (the objective allows ${clean(budget * 100)}%): at this rate the 30-day budget is gone in ${clean(720 / pair.burnRate)} hours.`,
      },
    };
  });
  return [...recording, { name: "studio-serve-vllm-slo-alerts", rules: alerts }];
}

/** One line per target for a rules file's header: what each is counted up to. */
export function sloHeader(options: SloRulesOptions): string {
  const objective = checkObjective(options.objective);
  const targets = sloTargets(options.slo)
    .map((t) => `${t.slo}=${t.targetMs}ms (counted up to vLLM's ${t.countedUpToSeconds}s bucket)`)
    .join(", ");
  return `# SLO: ${targets}; objective ${objective}. A target between buckets counts from the bucket below it, so attainment is never overstated.`;
}

/**
 * The text of a Prometheus rules file with the SLO recording rules and burn-rate alerts alone. To add them
 * to the alerting rules' file instead, give `prometheusRules` the same `slo` and `objective`.
 */
export function sloRules(options: SloRulesOptions): string {
  const groups = sloRuleGroups(options);
  return [
    "# SLO rules for vLLM instances, generated by @finetune-studio/serve-kit.",
    sloHeader(options),
    stringify({ groups }, { lineWidth: 0 }),
  ].join("\n");
}
