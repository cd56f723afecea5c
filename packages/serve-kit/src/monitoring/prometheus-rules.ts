import { stringify } from "yaml";
import type { BenchSlo } from "../bench/metrics.js";
import { checkKnownKeys, checkObject, refuse } from "../internal/validate.js";
import { checkJobName, FRONT_DOOR_JOB } from "./prometheus-config.js";
import { sloHeader, sloRuleGroups } from "./slo-rules.js";
import { VLLM_ERROR_FINISH_REASONS, VLLM_METRICS } from "./vllm-metric-names.js";

/** When the alerts fire. Every field is optional; each has a default and bounds. */
export interface PrometheusThresholds {
  /** Waiting requests above which a queue that is not shrinking alerts. Integer 1..1,000,000; default 10. */
  waitingRequests?: number;
  /** KV-cache usage (0..1] above which the cache is near full. Default 0.9. */
  kvCacheUsage?: number;
  /** Seconds of time to first token, p95 over 5 minutes, above which it alerts. (0, 3600]; default 2. */
  ttftP95Seconds?: number;
  /** Share (0..1] of requests finished as `error` or `abort` over 5 minutes above which it alerts. Default 0.05. */
  errorFinishRatio?: number;
  /** Minutes an instance is down before it alerts. Integer 1..1440; default 1. */
  downForMinutes?: number;
  /** Minutes the other conditions must hold before they alert. Integer 1..1440; default 5. */
  forMinutes?: number;
}

export interface PrometheusRulesOptions {
  thresholds?: PrometheusThresholds;
  /** The scrape job the rules watch, as in `prometheusConfig`. Default `vllm`. */
  jobName?: string;
  /** Adds the SLO recording rules and burn-rate alerts of `sloRules` for these targets (`ttft=500ms,...`). */
  slo?: string | BenchSlo;
  /** The SLO's objective, as in `sloRules`. Default 0.99; only with `slo`. */
  objective?: number;
}

interface Bound {
  default: number;
  min: number;
  minExclusive?: boolean;
  max: number;
  integer?: boolean;
}

const BOUNDS: Record<keyof PrometheusThresholds, Bound> = {
  waitingRequests: { default: 10, min: 1, max: 1_000_000, integer: true },
  kvCacheUsage: { default: 0.9, min: 0, minExclusive: true, max: 1 },
  ttftP95Seconds: { default: 2, min: 0, minExclusive: true, max: 3600 },
  errorFinishRatio: { default: 0.05, min: 0, minExclusive: true, max: 1 },
  downForMinutes: { default: 1, min: 1, max: 1440, integer: true },
  forMinutes: { default: 5, min: 1, max: 1440, integer: true },
};

/** Each threshold's default, as the rules use it when it is not given. */
export const THRESHOLD_DEFAULTS = Object.fromEntries(
  Object.entries(BOUNDS).map(([name, bound]) => [name, bound.default]),
) as Readonly<Required<PrometheusThresholds>>;

/** The alert names, in the order the rules file lists them. */
export const PROMETHEUS_ALERTS = [
  "VllmInstanceDown",
  "VllmRequestsQueueing",
  "VllmKvCacheNearlyFull",
  "VllmTimeToFirstTokenHigh",
  "VllmErrorFinishesRising",
  "FrontDoorDown",
] as const;

/** Fills in the defaults and checks each threshold against its bounds, naming the field on failure. */
export function resolveThresholds(value: unknown): Required<PrometheusThresholds> {
  const input = value === undefined ? {} : checkObject(value, "thresholds");
  const names = Object.keys(BOUNDS) as (keyof PrometheusThresholds)[];
  for (const key of Object.keys(input)) {
    if (!(names as string[]).includes(key)) {
      refuse(`thresholds.${key}`, `is not a threshold; known thresholds: ${names.join(", ")}`, input[key]);
    }
  }
  const resolved = {} as Required<PrometheusThresholds>;
  for (const name of names) {
    const bound = BOUNDS[name];
    const given = input[name] ?? bound.default;
    if (!withinBound(given, bound)) {
      const kind = bound.integer ? "an integer" : "a number";
      const from = bound.minExclusive ? `above ${bound.min}` : `from ${bound.min}`;
      refuse(
        `thresholds.${name}`,
        `must be ${kind} ${from} ${bound.minExclusive ? "and at most" : "to"} ${bound.max}`,
        given,
      );
    }
    resolved[name] = given as number;
  }
  return resolved;
}

function withinBound(value: unknown, bound: Bound): boolean {
  if (typeof value !== "number" || !Number.isFinite(value) || value > bound.max) return false;
  if (bound.minExclusive ? value <= bound.min : value < bound.min) return false;
  return !bound.integer || Number.isInteger(value);
}

/** A share as a percentage without float noise: 0.07 gives 7, not 7.000000000000001. */
function percent(share: number): number {
  return Number((share * 100).toPrecision(12));
}

/**
 * The text of a Prometheus rules file with the alerts a team serving vLLM wants: an instance down, a waiting
 * queue that stays long and does not shrink, the KV cache near full, time to first token p95 too high,
 * requests finishing as `error` or `abort` more than they should, and the front door itself down. Load it
 * from prometheus.yml's rule_files.
 */
export function prometheusRules(options: PrometheusRulesOptions = {}): string {
  const input = checkObject(options, "options");
  checkKnownKeys(input, ["thresholds", "jobName", "slo", "objective"], "the Prometheus rules");
  if (input.objective !== undefined && input.slo === undefined) {
    refuse(
      "objective",
      "needs slo: the objective is the share of requests within the SLO's targets",
      input.objective,
    );
  }
  const slo =
    input.slo === undefined
      ? undefined
      : {
          slo: input.slo as string | BenchSlo,
          objective: input.objective as number | undefined,
          jobName: input.jobName as string | undefined,
        };
  const sloGroups = slo === undefined ? [] : sloRuleGroups(slo);
  const t = resolveThresholds(input.thresholds);
  const rules = [...vllmAlertRules(t, checkJobName(input.jobName)), frontDoorDownRule(t)];
  return [
    "# Alerting rules for vLLM instances, generated by @finetune-studio/serve-kit.",
    `# Thresholds: ${Object.entries(t)
      .map(([name, value]) => `${name}=${value}`)
      .join(", ")}`,
    ...(slo === undefined ? [] : [sloHeader(slo)]),
    stringify({ groups: [{ name: "studio-serve-vllm", rules }, ...sloGroups] }, { lineWidth: 0 }),
  ].join("\n");
}

/** The alerts on the instances' own metrics, each per instance. */
function vllmAlertRules(t: Required<PrometheusThresholds>, jobName: string) {
  const job = `job="${jobName}"`;
  const by = "sum by (job, instance)";
  const kv = VLLM_METRICS.kvCacheUsage.map((name) => `${name}{${job}}`).join(" or ");
  const [waiting] = VLLM_METRICS.requestsWaiting;
  const [finished] = VLLM_METRICS.requestsFinished;
  const [ttft] = VLLM_METRICS.timeToFirstToken;
  const errors = VLLM_ERROR_FINISH_REASONS.join("|");
  const forLong = `${t.forMinutes}m`;
  return [
    instanceDownRule(t, job),
    {
      alert: "VllmRequestsQueueing",
      expr: `${by} (${waiting}{${job}}) > ${t.waitingRequests} and ${by} (deriv(${waiting}{${job}}[5m])) >= 0`,
      for: forLong,
      labels: { severity: "warning" },
      annotations: {
        summary: "Requests are queueing on {{ $labels.instance }}",
        description: `{{ $value }} requests wait on {{ $labels.instance }} (more than ${t.waitingRequests}) and the queue is not shrinking: add instances or lower the load.`,
      },
    },
    {
      alert: "VllmKvCacheNearlyFull",
      expr: `max by (job, instance) (${kv}) > ${t.kvCacheUsage}`,
      for: forLong,
      labels: { severity: "warning" },
      annotations: {
        summary: "KV cache nearly full on {{ $labels.instance }}",
        description: `KV-cache usage on {{ $labels.instance }} is {{ $value | humanizePercentage }} (above ${percent(t.kvCacheUsage)}%): requests will be preempted or wait.`,
      },
    },
    {
      alert: "VllmTimeToFirstTokenHigh",
      expr: `histogram_quantile(0.95, sum by (job, instance, le) (rate(${ttft}_bucket{${job}}[5m]))) > ${t.ttftP95Seconds}`,
      for: forLong,
      labels: { severity: "warning" },
      annotations: {
        summary: "Slow first tokens on {{ $labels.instance }}",
        description: `95% of requests on {{ $labels.instance }} got their first token within {{ $value | humanizeDuration }}, above ${t.ttftP95Seconds} s.`,
      },
    },
    {
      alert: "VllmErrorFinishesRising",
      expr: `${by} (rate(${finished}{${job},finished_reason=~"${errors}"}[5m])) / ${by} (rate(${finished}{${job}}[5m])) > ${t.errorFinishRatio}`,
      for: forLong,
      labels: { severity: "warning" },
      annotations: {
        summary: "Requests failing on {{ $labels.instance }}",
        description: `{{ $value | humanizePercentage }} of requests on {{ $labels.instance }} finished as ${VLLM_ERROR_FINISH_REASONS.join(" or ")} (above ${percent(t.errorFinishRatio)}%): read the server's log.`,
      },
    },
  ];
}

function instanceDownRule(t: Required<PrometheusThresholds>, job: string) {
  return {
    alert: "VllmInstanceDown",
    expr: `up{${job}} == 0`,
    for: `${t.downForMinutes}m`,
    labels: { severity: "critical" },
    annotations: {
      summary: "vLLM instance {{ $labels.instance }} is down",
      description: `Prometheus has not scraped {{ $labels.instance }} for ${t.downForMinutes} min: the server stopped, is loading, or is unreachable.`,
    },
  };
}

/**
 * The front door (HAProxy's exporter, scraped under the job `front-door`) down: every instance may be
 * fine and no caller reaches one. `up == 0` fires for a front door that prometheus.yml lists and that does
 * not answer; a configuration without the job has no front door to watch, so an absent series is no alert.
 */
function frontDoorDownRule(t: Required<PrometheusThresholds>) {
  return {
    alert: "FrontDoorDown",
    expr: `up{job="${FRONT_DOOR_JOB}"} == 0`,
    for: `${t.downForMinutes}m`,
    labels: { severity: "critical" },
    annotations: {
      summary: "The front door {{ $labels.instance }} is down",
      description: `Prometheus has not scraped the front door's metrics at {{ $labels.instance }} for ${t.downForMinutes} min: HAProxy stopped or is unreachable, and callers reach no instance through it. studio-serve status --launch P says what runs.`,
    },
  };
}
