import { afterEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { ServeConfigError } from "../errors.js";
import { promtool, tempFiles } from "../test/promtool.js";
import { PROMETHEUS_ALERTS, prometheusRules } from "./prometheus-rules.js";
import { SLO_WINDOWS, sloRules, sloSeries, sloTargets } from "./slo-rules.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function dir(files: Record<string, string>): string {
  const made = tempFiles(files);
  cleanups.push(made.remove);
  return made.dir;
}

describe("sloTargets", () => {
  it("reads bench's --slo syntax and counts each target from the largest bucket at or below it", () => {
    expect(sloTargets("ttft=300ms,tpot=50ms,e2el=2s")).toEqual([
      {
        slo: "ttft",
        targetMs: 300,
        countedUpToSeconds: 0.25,
        bounds: [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25],
      },
      { slo: "tpot", targetMs: 50, countedUpToSeconds: 0.05, bounds: [0.01, 0.025, 0.05] },
      { slo: "e2el", targetMs: 2000, countedUpToSeconds: 2, bounds: [0.3, 0.5, 0.8, 1, 1.5, 2] },
    ]);
  });

  it("takes bench's parsed form too", () => {
    expect(sloTargets({ e2elMs: 10_000 })).toMatchObject([{ slo: "e2el", countedUpToSeconds: 10 }]);
  });

  it.each([
    ["bench's syntax broken", "ttft<500ms", "slo: must be metric=time pairs"],
    [
      "a target below vLLM's smallest bucket",
      "ttft=0.5ms",
      "slo: ttft must be at least 1ms, vLLM's smallest ttft bucket: no request could be counted within 0.5ms",
    ],
    ["an unknown key of the parsed form", { ttft: 500 }, "ttft: is not an option of the SLO (slo)"],
    [
      "a negative parsed target",
      { tpotMs: -5 },
      "slo.tpotMs: must be a number of milliseconds above 0 (given -5)",
    ],
    ["no target at all", {}, "slo: must name at least one of ttft, tpot and e2el"],
  ])("refuses %s, naming the field", (_name, slo, message) => {
    expect(() => sloTargets(slo)).toThrow(ServeConfigError);
    expect(() => sloTargets(slo)).toThrow(message);
  });
});

describe("sloRules options", () => {
  it.each([
    [
      "an objective the fast alert could never reach",
      { slo: "ttft=500ms", objective: 0.9 },
      "objective: must be a share above 0.9306",
    ],
    ["an objective of 1", { slo: "ttft=500ms", objective: 1 }, "objective: must be a share above 0.9306"],
    ["a job name with a space", { slo: "ttft=500ms", jobName: "my job" }, "jobName: must match"],
    ["an unknown option", { slo: "ttft=500ms", target: 1 }, "target: is not an option of the SLO rules"],
  ])("refuses %s", (_name, options, message) => {
    expect(() => sloRules(options as never)).toThrow(message);
  });

  it("refuses an objective without an SLO in prometheusRules", () => {
    expect(() => prometheusRules({ objective: 0.99 })).toThrow("objective: needs slo");
  });

  it("says in the file what each target is counted up to", () => {
    expect(sloRules({ slo: "ttft=300ms" })).toContain(
      "# SLO: ttft=300ms (counted up to vLLM's 0.25s bucket); objective 0.99.",
    );
  });
});

describe("the SLO rules in Debian's promtool", { timeout: 60_000 }, () => {
  it("pass promtool check rules, alone and added to the alerting rules", async () => {
    const slo = "ttft=500ms,tpot=50ms,e2el=10s";
    const perWindow = 3 * 2 + 2;
    const expected = SLO_WINDOWS.length * perWindow + 2;
    const alone = await promtool(["check", "rules", "slo.yml"], dir({ "slo.yml": sloRules({ slo }) }));
    expect(alone.code, alone.output).toBe(0);
    expect(alone.output).toContain(`SUCCESS: ${expected} rules found`);
    const added = await promtool(
      ["check", "rules", "rules.yml"],
      dir({ "rules.yml": prometheusRules({ slo, objective: 0.995 }) }),
    );
    expect(added.code, added.output).toBe(0);
    expect(added.output).toContain(`SUCCESS: ${expected + PROMETHEUS_ALERTS.length} rules found`);
  });

  it("record the share within each target per instance and for the fleet, on both engines' names, and burn-rate alerts fire", async () => {
    const result = await promtool(
      ["test", "rules", "tests.yml"],
      dir({ "rules.yml": sloRules({ slo: SLO }), "tests.yml": ruleTests(EXPECTED) }),
    );
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain("SUCCESS");
  });

  it("fail promtool test rules when a share is not the one expected (the test is real)", async () => {
    const wrong = { ...EXPECTED, fleet: { ...EXPECTED.fleet, ttft: 0.875 } };
    const result = await promtool(
      ["test", "rules", "tests.yml"],
      dir({ "rules.yml": sloRules({ slo: SLO }), "tests.yml": ruleTests(wrong) }),
    );
    expect(result.code).not.toBe(0);
  });
});

// Instance a runs vLLM 0.11 (per-request TPOT, and the deprecated per-token histogram, which must be
// ignored); b runs an older server that only has time_per_output_token_seconds. Each minute, a answers 4
// requests with TTFT 0.05, 0.05, 0.28 and 0.4 s: the 0.28 s one is within 300 ms but above the 0.25 s bucket,
// so it counts as missing (2 of 4). b answers 4, all within every target.
const SLO = "ttft=300ms,tpot=50ms,e2el=2s";
const PER_MINUTE = {
  a: {
    "vllm:time_to_first_token_seconds": { "0.1": 2, "0.25": 2, "0.5": 4, "+Inf": 4 },
    "vllm:request_time_per_output_token_seconds": { "0.025": 1, "0.05": 2, "0.1": 4, "+Inf": 4 },
    "vllm:time_per_output_token_seconds": { "0.025": 400, "0.05": 400, "+Inf": 400 },
    "vllm:e2e_request_latency_seconds": { "1.0": 3, "2.0": 3, "5.0": 4, "+Inf": 4 },
  },
  b: {
    "vllm:time_to_first_token_seconds": { "0.1": 4, "0.25": 4, "+Inf": 4 },
    "vllm:time_per_output_token_seconds": { "0.05": 400, "+Inf": 400 },
    "vllm:e2e_request_latency_seconds": { "1.0": 4, "2.0": 4, "+Inf": 4 },
  },
} as const;

const EXPECTED = {
  a: { ttft: 0.5, tpot: 0.5, e2el: 0.75 },
  b: { ttft: 1, tpot: 1, e2el: 1 },
  // From the counts: (2 + 4) / (4 + 4); TPOT weighs a's 4 requests against b's 400 token intervals.
  fleet: { ttft: 0.75, tpot: 402 / 404, e2el: 7 / 8 },
};

function ruleTests(expected: typeof EXPECTED): string {
  const input_series = Object.entries(PER_MINUTE).flatMap(([instance, metrics]) =>
    Object.entries(metrics).flatMap(([name, buckets]) => {
      const labels = `job="vllm",instance="${instance}:8000",model_name="m",engine="0"`;
      const count = (buckets as Record<string, number>)["+Inf"];
      return [
        ...Object.entries(buckets).map(([le, perMinute]) => ({
          series: `${name}_bucket{${labels},le="${le}"}`,
          values: `0+${perMinute}x60`,
        })),
        { series: `${name}_count{${labels}}`, values: `0+${count}x60` },
      ];
    }),
  );
  const samples = (level: "a" | "b" | "fleet", window: (typeof SLO_WINDOWS)[number]) =>
    (["ttft", "tpot", "e2el"] as const).map((slo) => ({
      labels:
        level === "fleet"
          ? `${sloSeries.fleetAttainment(window)}{job="vllm",slo="${slo}"}`
          : `${sloSeries.instanceAttainment(window)}{instance="${level}:8000",job="vllm",slo="${slo}"}`,
      value: expected[level][slo],
    }));
  const burning = (
    slo: "ttft" | "tpot" | "e2el",
    value: string,
    severity: string,
    summary: string,
    window: string,
  ) => ({
    exp_labels: { severity, job: "vllm", slo },
    exp_annotations: {
      summary: `The ${slo} SLO of job vllm is burning its error budget ${summary} too fast`,
      description: `${value} of requests missed the ${slo} target over the last ${window} (the objective allows 1%): at this rate the 30-day budget is gone in ${summary === "14.4x" ? 50 : 120} hours.`,
    },
  });
  return stringify({
    rule_files: ["rules.yml"],
    evaluation_interval: "1m",
    tests: [
      {
        interval: "1m",
        input_series,
        // Windows the hour of series fills: promtool 2.42 compares exactly, and a rate over a partly filled
        // window extrapolates with float noise.
        promql_expr_test: (["5m", "30m"] as const).flatMap((window) =>
          (["a", "b", "fleet"] as const).map((level) => ({
            expr:
              level === "fleet"
                ? sloSeries.fleetAttainment(window)
                : `${sloSeries.instanceAttainment(window)}{instance="${level}:8000"}`,
            eval_time: "59m",
            exp_samples: samples(level, window),
          })),
        ),
        alert_rule_test: [
          // Not before each alert's `for`.
          { eval_time: "1m", alertname: "VllmSloBudgetBurningFast", exp_alerts: [] },
          { eval_time: "10m", alertname: "VllmSloBudgetBurningSlowly", exp_alerts: [] },
          {
            eval_time: "10m",
            alertname: "VllmSloBudgetBurningFast",
            exp_alerts: [
              burning("ttft", "25%", "critical", "14.4x", "1h and 5m"),
              // 2 of 404 = 0.495%: under 14.4 x 1%.
            ],
          },
          {
            eval_time: "30m",
            alertname: "VllmSloBudgetBurningSlowly",
            exp_alerts: [
              burning("ttft", "25%", "warning", "6x", "6h and 30m"),
              // 1 in 8 misses 2 s: above 6 x 1%, under 14.4 x 1%.
              burning("e2el", "12.5%", "warning", "6x", "6h and 30m"),
            ],
          },
        ],
      },
    ],
  });
}
