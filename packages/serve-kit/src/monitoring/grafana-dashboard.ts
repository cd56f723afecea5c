import {
  type Dashboard,
  DashboardBuilder,
  DashboardCursorSync,
  DatasourceVariableBuilder,
  QueryVariableBuilder,
  RowBuilder,
  VariableRefresh,
  VariableSort,
} from "@grafana/grafana-foundation-sdk/dashboard";
import { DataqueryBuilder, PromQueryFormat } from "@grafana/grafana-foundation-sdk/prometheus";
import { PanelBuilder as TablePanelBuilder } from "@grafana/grafana-foundation-sdk/table";
import { PanelBuilder as TimeseriesPanelBuilder } from "@grafana/grafana-foundation-sdk/timeseries";
import type { BenchSlo } from "../bench/metrics.js";
import { HAPROXY_BACKEND, HAPROXY_FRONTEND } from "../front-door/haproxy-config.js";
import { hasControlCharacter } from "../internal/text.js";
import { checkKnownKeys, checkObject, checkString, refuse } from "../internal/validate.js";
import { checkJobName } from "./prometheus-config.js";
import { eitherName, matchers } from "./promql.js";
import { checkObjective, sloSeries, sloTargets } from "./slo-rules.js";
import { VLLM_METRICS } from "./vllm-metric-names.js";

/** A Grafana dashboard (classic JSON model), as the foundation SDK's builders produce it. */
export type GrafanaDashboard = Dashboard;

export interface GrafanaDashboardOptions {
  /** The dashboard's title. Default `vLLM (studio-serve)`. */
  title?: string;
  /**
   * Grafana's uid: importing a dashboard with the same uid again updates it instead of adding a copy. 1 to
   * 40 of `[A-Za-z0-9_-]`. Default `studio-serve-vllm`.
   */
  uid?: string;
  /** The scrape job of the vLLM instances, as in `prometheusConfig`. Default `vllm`. */
  jobName?: string;
  /** The SLO targets of `sloRules` (`ttft=500ms,tpot=50ms`): adds attainment and burn-rate panels on its rules. */
  slo?: string | BenchSlo;
  /** The SLO's objective, as in `sloRules`. Default 0.99; only with `slo`. */
  objective?: number;
}

export const DEFAULT_DASHBOARD_UID = "studio-serve-vllm";
export const DEFAULT_DASHBOARD_TITLE = "vLLM (studio-serve)";
const UID = /^[A-Za-z0-9_-]{1,40}$/;

/** Every panel and query reads the data source the user picks in the `datasource` variable. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax, not a template literal
const DATASOURCE = { type: "prometheus", uid: "${datasource}" };
/** Grafana's rate window: at least four scrapes, so a rate always has two samples. */
const WINDOW = "[$__rate_interval]";
const QUANTILES = [0.5, 0.95, 0.99] as const;

/** Grafana units: seconds, a 0..1 share shown as a percentage, requests per second, and custom suffixes. */
const UNIT = {
  seconds: "s",
  share: "percentunit",
  requestsPerSecond: "reqps",
  tokensPerSecond: "suffix: tok/s",
  perSecond: "suffix: /s",
  times: "suffix:×",
  count: "short",
} as const;

interface Query {
  expr: string;
  legend: string;
  /** One value per series now, for a table (instance states). */
  instant?: boolean;
}

interface PanelSpec {
  title: string;
  description: string;
  unit?: string;
  table?: boolean;
  queries: Query[];
}

/** How a panel aggregates: over the whole fleet, or per instance. */
interface Scope {
  /** `sum ${by}(...)`: empty for the fleet, `by (instance) ` per instance. */
  by: string;
  /** The same with `le` kept, for histogram_quantile. */
  byLe: string;
  legend(name: string): string;
}

const FLEET: Scope = { by: "", byLe: "by (le) ", legend: (name) => name };
const PER_INSTANCE: Scope = {
  by: "by (instance) ",
  byLe: "by (instance, le) ",
  legend: (name) => `{{instance}} ${name}`,
};

/** What a scope's vLLM panels share: the label matchers, and how a counter's rate reads both engines' names. */
interface VllmQueries {
  scope: Scope;
  where: string;
  rate(names: readonly string[]): string;
}

/** The vLLM panels, for one scope. Each query reads both engines' names where vLLM renamed a metric. */
function vllmPanels(scope: Scope, job: string): PanelSpec[] {
  const where = matchers(`job="${job}"`, 'instance=~"$instance"');
  const rate = (names: readonly string[]) => eitherName(names, (name) => `rate(${name}{${where}}${WINDOW})`);
  const queries: VllmQueries = { scope, where, rate };
  return [...loadPanels(queries), ...latencyPanels(queries), ...cachePanels(queries)];
}

/** The batch, the queue, the KV cache and the tokens flowing. */
function loadPanels({ scope, where, rate }: VllmQueries): PanelSpec[] {
  const kv = eitherName(VLLM_METRICS.kvCacheUsage, (name) => `${name}{${where}}`);
  return [
    {
      title: "Requests running and waiting",
      description:
        "Requests in the running batch and waiting for a slot. A queue that stays long means too few instances.",
      unit: UNIT.count,
      queries: [
        {
          expr: `sum ${scope.by}(${VLLM_METRICS.requestsRunning[0]}{${where}})`,
          legend: scope.legend("running"),
        },
        {
          expr: `sum ${scope.by}(${VLLM_METRICS.requestsWaiting[0]}{${where}})`,
          legend: scope.legend("waiting"),
        },
      ],
    },
    {
      title: "KV-cache usage",
      description:
        "Share of the KV cache in use (the fullest engine). Near 100%, vLLM preempts requests or makes them wait.",
      unit: UNIT.share,
      queries: [{ expr: `max ${scope.by}(${kv})`, legend: scope.legend("max") }],
    },
    {
      title: "Tokens per second",
      description:
        "Prompt tokens prefilled and tokens generated per second. A drop while requests wait: an instance is stuck or preempting; check its logs.",
      unit: UNIT.tokensPerSecond,
      queries: [
        { expr: `sum ${scope.by}(${rate(VLLM_METRICS.promptTokens)})`, legend: scope.legend("prompt") },
        {
          expr: `sum ${scope.by}(${rate(VLLM_METRICS.generationTokens)})`,
          legend: scope.legend("generation"),
        },
      ],
    },
  ];
}

/** p50, p95 and p99 of vLLM's latency histograms. */
function latencyPanels({ scope, where }: VllmQueries): PanelSpec[] {
  const quantiles = (names: readonly string[]) =>
    QUANTILES.map((q) => ({
      expr: `histogram_quantile(${q}, sum ${scope.byLe}(${eitherName(names, (name) => `rate(${name}_bucket{${where}}${WINDOW})`)}))`,
      legend: scope.legend(`p${q * 100}`),
    }));
  return [
    {
      title: "Time to first token",
      description:
        "p50, p95 and p99 of the time from a request's arrival to its first token. Rising with the queue: add instances; alone: long prompts (try prefix caching).",
      unit: UNIT.seconds,
      queries: quantiles(VLLM_METRICS.timeToFirstToken),
    },
    {
      title: "Time per output token",
      description:
        "p50, p95 and p99 of each request's time per generated token (vLLM before 0.11: of each token interval). Rising: the batch is too large for the GPU; lower --max-num-seqs or add instances.",
      unit: UNIT.seconds,
      queries: quantiles(VLLM_METRICS.timePerOutputToken),
    },
    {
      title: "End-to-end latency",
      description:
        "p50, p95 and p99 of the time from a request's arrival to its last token. Rising: see which of TTFT (queueing, prefill) or TPOT (a full batch) grew.",
      unit: UNIT.seconds,
      queries: quantiles(VLLM_METRICS.e2eLatency),
    },
  ];
}

/** The prefix cache, preemptions and how requests finish. */
function cachePanels(queries: VllmQueries): PanelSpec[] {
  const { scope, rate } = queries;
  return [
    prefixCachePanel(queries),
    {
      title: "Preemptions",
      description:
        "Requests preempted per second: their KV cache was freed to make room and they must be computed again.",
      unit: UNIT.perSecond,
      queries: [
        { expr: `sum ${scope.by}(${rate(VLLM_METRICS.preemptions)})`, legend: scope.legend("preempted") },
      ],
    },
    {
      title: "Finished requests by reason",
      description:
        "Requests finished per second, by reason: stop and length are normal, abort means the client left, error a failure.",
      unit: UNIT.requestsPerSecond,
      queries: [
        {
          expr: `sum by (${scope === FLEET ? "" : "instance, "}finished_reason) (${rate(VLLM_METRICS.requestsFinished)})`,
          legend: scope.legend("{{finished_reason}}"),
        },
      ],
    },
  ];
}

/**
 * The prefix-cache hit rate: hits over lookups in the window, from the counters of V1 engines (vLLM 0.8 and
 * later); V0 engines have only a gauge, the hit rate since the engine started. Per instance, an instance
 * without the counters shows its gauge; over the fleet, the V0 engines' gauges are averaged in a line of
 * their own (a gauge of shares carries no token counts to weigh them with).
 */
function prefixCachePanel({ scope, where, rate }: VllmQueries): PanelSpec {
  const window = `sum ${scope.by}(${rate(VLLM_METRICS.prefixCacheHits)}) / sum ${scope.by}(${rate(VLLM_METRICS.prefixCacheQueries)})`;
  const [v0Gauge] = VLLM_METRICS.prefixCacheHitRateV0;
  const sinceStart = `avg ${scope.by}(${v0Gauge}{${where}})`;
  return {
    title: "Prefix-cache hit rate",
    description:
      "Share of prompt tokens found in the prefix cache, over the window (V0 engines: since the engine started, the only figure they give). Low with shared system prompts: check --enable-prefix-caching and the front door's --routing.",
    unit: UNIT.share,
    queries:
      scope === FLEET
        ? [
            { expr: window, legend: "hit rate" },
            { expr: sinceStart, legend: "V0 engines, since start" },
          ]
        : [{ expr: `(${window}) or ${sinceStart}`, legend: scope.legend("hit rate") }],
  };
}

/**
 * HAProxy 2.6's own exporter (`http-request use-service prometheus-exporter`). Responses are the frontend's:
 * everything the front door answered, whatever routed it, with its own refusals (403 for a control
 * endpoint, 503 when no instance is up); the queue and the states are the one backend's and its servers'.
 */
function frontDoorPanels(): PanelSpec[] {
  const frontend = `proxy="${HAPROXY_FRONTEND}"`;
  const backend = `proxy="${HAPROXY_BACKEND}"`;
  const responses = (extra?: string) =>
    `sum(rate(haproxy_frontend_http_responses_total{${matchers(frontend, extra)}}${WINDOW}))`;
  return [
    {
      title: "Front door: responses per second",
      description:
        "Responses the front door sent, by HTTP status class, whichever instance or rule answered. 5xx showing up: see the 5xx share and the instance states; 4xx includes the front door's 403 to vLLM's control endpoints.",
      unit: UNIT.requestsPerSecond,
      queries: [
        {
          expr: `sum by (code) (rate(haproxy_frontend_http_responses_total{${frontend}}${WINDOW}))`,
          legend: "{{code}}",
        },
      ],
    },
    {
      title: "Front door: 5xx share",
      description: "Share of responses that were 5xx. Rising: an instance fails, or none is up (503).",
      unit: UNIT.share,
      queries: [{ expr: `${responses('code="5xx"')} / ${responses()}`, legend: "5xx" }],
    },
    {
      title: "Front door: queue",
      description:
        "Requests HAProxy holds until an instance has a free slot (maxconn = --max-num-seqs, one bound per instance whatever the routing). Growing: add instances.",
      unit: UNIT.count,
      queries: [
        { expr: `sum(haproxy_backend_current_queue{${backend}})`, legend: "backend" },
        { expr: `sum by (server) (haproxy_server_current_queue{${backend}})`, legend: "{{server}}" },
      ],
    },
    {
      title: "Front door: instance states",
      description:
        "Each instance's state in the front door (UP, DOWN, DRAIN, MAINT) and its last health check (L7OK passes).",
      table: true,
      queries: [
        { expr: `haproxy_server_status{${backend}} == 1`, legend: "{{server}} {{state}}", instant: true },
        {
          expr: `haproxy_server_check_status{${backend}} == 1`,
          legend: "{{server}} check {{state}}",
          instant: true,
        },
      ],
    },
  ];
}

/** Attainment and burn rate, read from the series `sloRules` records. */
function sloPanels(slo: unknown, objectiveValue: unknown, job: string): PanelSpec[] {
  const targets = sloTargets(slo);
  const objective = checkObjective(objectiveValue);
  const budget = Number((1 - objective).toPrecision(12));
  const counted = targets
    .map((t) => `${t.slo} within ${t.targetMs} ms (counted up to the ${t.countedUpToSeconds} s bucket)`)
    .join(", ");
  const fleet = `job="${job}"`;
  return [
    {
      title: "SLO attainment, fleet",
      description: `Share of requests within each target: ${counted}. The objective is ${objective}; below it, the error budget burns.`,
      unit: UNIT.share,
      queries: [
        { expr: `${sloSeries.fleetAttainment("5m")}{${fleet}}`, legend: "{{slo}} 5m" },
        { expr: `${sloSeries.fleetAttainment("1h")}{${fleet}}`, legend: "{{slo}} 1h" },
        { expr: `vector(${objective})`, legend: "objective" },
      ],
    },
    {
      title: "SLO attainment per instance",
      description: `Share of each instance's requests within each target, over 5 minutes: ${counted}. One instance below the others: check its GPU and logs.`,
      unit: UNIT.share,
      queries: [
        {
          expr: `${sloSeries.instanceAttainment("5m")}{${matchers(fleet, 'instance=~"$instance"')}}`,
          legend: "{{instance}} {{slo}}",
        },
      ],
    },
    {
      title: "SLO error-budget burn rate",
      description:
        "How many times faster than the objective allows requests miss their target. 14.4 over 1 h pages, 6 over 6 h opens a ticket.",
      unit: UNIT.times,
      queries: (["5m", "1h", "6h"] as const).map((window) => ({
        expr: `(1 - ${sloSeries.fleetAttainment(window)}{${fleet}}) / ${budget}`,
        legend: `{{slo}} ${window}`,
      })),
    },
  ];
}

/**
 * A Grafana dashboard for a fleet of vLLM instances behind the launch's front door, built with Grafana's
 * foundation SDK: a data-source and an instance variable; the fleet's and each instance's queue, KV cache,
 * throughput, latency percentiles, prefix-cache hits, preemptions and finish reasons; the front door's
 * HAProxy metrics; and, given `slo`, the attainment its rules record. Pure: the same input gives the same
 * dashboard (and uid) on every run.
 */
export function grafanaDashboard(options: GrafanaDashboardOptions = {}): GrafanaDashboard {
  const input = checkObject(options, "options");
  checkKnownKeys(input, ["title", "uid", "jobName", "slo", "objective"], "the Grafana dashboard");
  const title = input.title === undefined ? DEFAULT_DASHBOARD_TITLE : checkString(input.title, "title");
  if (title.trim() === "" || title.length > 200 || hasControlCharacter(title)) {
    refuse("title", "must be 1 to 200 characters without control characters", input.title);
  }
  const uid = input.uid ?? DEFAULT_DASHBOARD_UID;
  if (typeof uid !== "string" || !UID.test(uid)) {
    refuse("uid", "must be 1 to 40 characters of A-Z, a-z, 0-9, _ and -", uid);
  }
  if (input.objective !== undefined && input.slo === undefined) {
    refuse(
      "objective",
      "needs slo: the objective is the share of requests within the SLO's targets",
      input.objective,
    );
  }
  const job = checkJobName(input.jobName);
  const rows: [string, PanelSpec[]][] = [
    ["Fleet", vllmPanels(FLEET, job)],
    ["Per instance", vllmPanels(PER_INSTANCE, job)],
    ["Front door (HAProxy)", frontDoorPanels()],
  ];
  if (input.slo !== undefined) rows.push(["SLO", sloPanels(input.slo, input.objective, job)]);

  const builder = new DashboardBuilder(title)
    .uid(uid)
    .tags(["vllm", "studio-serve"])
    .editable()
    .tooltip(DashboardCursorSync.Crosshair)
    .time({ from: "now-1h", to: "now" })
    .refresh("30s")
    .withVariable(new DatasourceVariableBuilder("datasource").label("Data source").type("prometheus"))
    .withVariable(
      new QueryVariableBuilder("instance")
        .label("Instance")
        .datasource(DATASOURCE)
        .query(`label_values(up{job="${job}"}, instance)`)
        .refresh(VariableRefresh.OnTimeRangeChanged)
        .sort(VariableSort.AlphabeticalAsc)
        .multi(true)
        .includeAll(true)
        .allValue(".+"),
    );
  let id = 0;
  for (const [rowTitle, panels] of rows) {
    builder.withRow(new RowBuilder(rowTitle).id(++id));
    for (const spec of panels) builder.withPanel(panel(spec, ++id));
  }
  return builder.build();
}

function panel(spec: PanelSpec, id: number) {
  const targets = spec.queries.map((query, index) => {
    const target = new DataqueryBuilder()
      .datasource(DATASOURCE)
      .refId(String.fromCharCode(65 + index))
      .expr(query.expr)
      .legendFormat(query.legend);
    return query.instant ? target.instant().format(PromQueryFormat.Table) : target.range();
  });
  const built = spec.table ? new TablePanelBuilder() : new TimeseriesPanelBuilder();
  built.id(id).title(spec.title).description(spec.description).datasource(DATASOURCE);
  if (spec.unit !== undefined) built.unit(spec.unit);
  for (const target of targets) built.withTarget(target);
  return built;
}
