import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ServeConfigError } from "../errors.js";
import { DEFAULT_DASHBOARD_UID, grafanaDashboard } from "./grafana-dashboard.js";

// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax, not a template literal
const ON_VARIABLE = { type: "prometheus", uid: "${datasource}" };

interface Target {
  expr: string;
  refId: string;
  datasource?: { type?: string; uid?: string };
}
interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: { type?: string; uid?: string };
  fieldConfig?: { defaults?: { unit?: string } };
  targets?: Target[];
}

const panels = (options = {}) => grafanaDashboard(options).panels as unknown as Panel[];
const queryPanels = (options = {}) => panels(options).filter((panel) => panel.type !== "row");

/** What a query measures, read from its PromQL, and the Grafana units that fit it. */
function kind(expr: string): "time" | "ratio" | "rate" | "burn" | undefined {
  if (expr.startsWith("histogram_quantile(")) return "time";
  // A missed share over the budget's share: how many times too fast the budget burns.
  if (/^\(1 - .*\) \/ [0-9.]+$/.test(expr)) return "burn";
  if (/attainment|within_target:ratio|\) \/ sum|_perc\{/.test(expr)) return "ratio";
  if (expr.includes("rate(") || expr.includes("ratio_rate")) return "rate";
  return undefined;
}
const UNITS = {
  time: ["s", "ms"],
  ratio: ["percentunit"],
  rate: ["reqps", "suffix: tok/s", "suffix: /s"],
  burn: ["suffix:×"],
};

const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

describe("grafanaDashboard", () => {
  it("has a stable uid and a data-source and an instance variable", () => {
    const dashboard = grafanaDashboard();
    expect(dashboard.uid).toBe(DEFAULT_DASHBOARD_UID);
    expect(dashboard.title).toBe("vLLM (studio-serve)");
    const variables = dashboard.templating?.list ?? [];
    expect(variables.map((v) => [v.name, v.type])).toEqual([
      ["datasource", "datasource"],
      ["instance", "query"],
    ]);
    expect(variables[0]?.query).toBe("prometheus");
    expect(variables[1]).toMatchObject({
      query: 'label_values(up{job="vllm"}, instance)',
      datasource: ON_VARIABLE,
      multi: true,
      includeAll: true,
    });
  });

  it("is the same on every run", () => {
    const slo = { slo: "ttft=500ms,tpot=50ms", objective: 0.995 };
    expect(JSON.stringify(grafanaDashboard(slo))).toBe(JSON.stringify(grafanaDashboard(slo)));
    expect(grafanaDashboard({ title: "Fleet A", uid: "fleet-a" })).toMatchObject({
      title: "Fleet A",
      uid: "fleet-a",
    });
  });

  it("gives every panel and row a unique id and every query a unique refId within its panel", () => {
    const all = panels({ slo: "ttft=500ms" });
    const ids = all.map((panel) => panel.id);
    expect(ids.every((id) => Number.isInteger(id) && id > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const panel of queryPanels({ slo: "ttft=500ms" })) {
      const refIds = (panel.targets ?? []).map((target) => target.refId);
      expect(
        refIds.every((refId) => /^[A-Z]$/.test(refId)),
        panel.title,
      ).toBe(true);
      expect(new Set(refIds).size, panel.title).toBe(refIds.length);
    }
  });

  it("reads the data-source variable in every panel and every query", () => {
    for (const panel of queryPanels({ slo: "ttft=500ms" })) {
      expect(panel.datasource, panel.title).toEqual(ON_VARIABLE);
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets ?? []) {
        expect(target.datasource, target.expr).toEqual(ON_VARIABLE);
      }
    }
  });

  it("has no __inputs and no DS_ placeholder: import asks nothing and a provisioned copy works as is", () => {
    const text = JSON.stringify(grafanaDashboard({ slo: "ttft=500ms" }));
    expect(text).not.toMatch(/__inputs|\$\{DS_/);
    expect(readme).toContain("It has no `__inputs`, on purpose");
  });

  it("puts a unit that fits on every time, rate and ratio panel", () => {
    const checked = new Set<string>();
    for (const panel of queryPanels({ slo: "ttft=500ms" })) {
      const unit = panel.fieldConfig?.defaults?.unit;
      for (const target of panel.targets ?? []) {
        const measured = kind(target.expr);
        if (measured === undefined) continue;
        checked.add(measured);
        expect(UNITS[measured], `${panel.title}: ${target.expr}`).toContain(unit);
      }
    }
    expect([...checked].sort()).toEqual(["burn", "rate", "ratio", "time"]);
  });

  it("has the panels for the fleet and per instance, and the front door's", () => {
    const titles = queryPanels().map((panel) => panel.title);
    const vllm = [
      "Requests running and waiting",
      "KV-cache usage",
      "Tokens per second",
      "Time to first token",
      "Time per output token",
      "End-to-end latency",
      "Prefix-cache hit rate",
      "Preemptions",
      "Finished requests by reason",
    ];
    expect(titles).toEqual([
      ...vllm,
      ...vllm,
      "Front door: responses per second",
      "Front door: 5xx share",
      "Front door: queue",
      "Front door: instance states",
    ]);
    expect(
      panels()
        .filter((panel) => panel.type === "row")
        .map((row) => row.title),
    ).toEqual(["Fleet", "Per instance", "Front door (HAProxy)"]);
  });

  it("reads both vLLM engines' names wherever vLLM renamed a metric", () => {
    const exprs = queryPanels().flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
    for (const [current, old] of [
      ["vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"],
      ["vllm:prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits_total"],
      ["vllm:prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries_total"],
      ["vllm:request_time_per_output_token_seconds_bucket", "vllm:time_per_output_token_seconds_bucket"],
    ]) {
      const using = exprs.filter((expr) => expr.includes(`${current}{`));
      expect(using.length, current).toBeGreaterThan(0);
      for (const expr of using)
        expect(expr).toMatch(new RegExp(`${current}\\{[^}]*\\}(\\[[^\\]]*\\])?\\)? or (rate\\()?${old}\\{`));
    }
  });

  it("adds the SLO panels only when given the SLO, on the series its rules record", () => {
    expect(panels().some((panel) => panel.title.startsWith("SLO"))).toBe(false);
    const slo = queryPanels({ slo: "ttft=300ms", objective: 0.995 }).filter((panel) =>
      panel.title.startsWith("SLO"),
    );
    expect(slo.map((panel) => panel.title)).toEqual([
      "SLO attainment, fleet",
      "SLO attainment per instance",
      "SLO error-budget burn rate",
    ]);
    expect(slo[0]?.targets?.map((target) => target.expr)).toContain("vector(0.995)");
    expect(JSON.stringify(slo[0])).toContain("ttft within 300 ms (counted up to the 0.25 s bucket)");
    expect(slo[2]?.targets?.[0]?.expr).toBe(
      '(1 - job_slo:vllm_requests_within_target:ratio_rate5m{job="vllm"}) / 0.005',
    );
  });

  it.each([
    [
      "a uid with a slash",
      { uid: "a/b" },
      'uid: must be 1 to 40 characters of A-Z, a-z, 0-9, _ and - (given "a/b")',
    ],
    ["a uid of 41 characters", { uid: "a".repeat(41) }, "uid: must be 1 to 40 characters"],
    ["an empty title", { title: " " }, "title: must be 1 to 200 characters without control characters"],
    ["a title with a newline", { title: "a\nb" }, "title: must be 1 to 200 characters"],
    ["an objective without an SLO", { objective: 0.99 }, "objective: needs slo"],
    ["a broken SLO", { slo: "ttft:500" }, "slo: must be metric=time pairs"],
    ["an unknown option", { datasource: "prom" }, "datasource: is not an option of the Grafana dashboard"],
  ])("refuses %s, naming the field", (_name, options, message) => {
    expect(() => grafanaDashboard(options as never)).toThrow(ServeConfigError);
    expect(() => grafanaDashboard(options as never)).toThrow(message);
  });
});
