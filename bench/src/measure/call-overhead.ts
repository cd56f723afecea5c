// Latency one call at a time, and throughput with many callers, of each way of making the same call. The
// first scenario of a group is the reference (raw fetch): the other rows say what they cost on top of it.
// Every comparison is taken round by round (the scenarios ran back to back in each round) and reported as
// the median over the rounds with its interquartile range, so that a slow spell of the shared machine moves
// the spread, not the figure, and two runs can be compared.
import { count, micros, perSecond } from "../format.js";
import { ratioSpread } from "../report.js";
import { median, perRound, type Spread, spread, summarize } from "../stats.js";
import { markdownTable } from "../table.js";
import { concurrentThroughput, type LoopSettings, type Scenario, sequentialLatencies } from "./timing.js";

export interface CallGroup {
  /** The operation: every scenario of the group makes this same call. */
  readonly name: string;
  /** The first one is the reference the others are compared with; one may be the baseline (timing.ts). */
  readonly scenarios: readonly Scenario[];
}

export interface CallSettings {
  readonly sequential: LoopSettings;
  readonly concurrent: LoopSettings;
  readonly callers: number;
}

/** One scenario's figures per round. */
interface Rounds {
  /** The median latency of each round, milliseconds. */
  readonly medians: number[];
  /** The rate of each round with many callers, calls per second. */
  readonly rates: number[];
}

export async function measureCalls(groups: readonly CallGroup[], settings: CallSettings): Promise<string> {
  const rows: string[][] = [];
  for (const group of groups) rows.push(...(await groupRows(group, settings)));
  return markdownTable(
    [
      "call",
      "caller",
      "median",
      "p99",
      "median vs raw fetch",
      "vs baseline, per call",
      `throughput, ${count(settings.callers)} callers`,
      "throughput vs raw fetch",
      "throughput vs baseline",
    ],
    rows,
    ["left", "left"],
  );
}

async function groupRows(group: CallGroup, settings: CallSettings): Promise<string[][]> {
  const latencies = await sequentialLatencies(group.scenarios, settings.sequential);
  const rates = await concurrentThroughput(group.scenarios, settings.callers, settings.concurrent);
  const roundsOf = (scenario: Scenario | undefined): Rounds => ({
    medians: (scenario && latencies.get(scenario)?.map(median)) ?? [],
    rates: (scenario && rates.get(scenario)) ?? [],
  });
  const reference = roundsOf(group.scenarios[0]);
  const baseline = group.scenarios.find((scenario) => scenario.baseline);
  const versus = baseline && roundsOf(baseline);
  return group.scenarios.map((scenario) => {
    const own = roundsOf(scenario);
    const latency = summarize(latencies.get(scenario)?.flat() ?? []);
    const against = versus && scenario !== baseline && scenario !== group.scenarios[0];
    return [
      group.name,
      scenario === baseline ? `${scenario.caller} (baseline)` : scenario.caller,
      micros(latency.median),
      micros(latency.p99),
      ratioSpread(spread(perRound(own.medians, reference.medians, (a, b) => a / b))),
      against ? extraMicros(spread(perRound(own.medians, versus.medians, (a, b) => a - b))) : "",
      perSecond(median(own.rates)),
      ratioSpread(spread(perRound(own.rates, reference.rates, (a, b) => a / b))),
      against ? ratioSpread(spread(perRound(own.rates, versus.rates, (a, b) => a / b))) : "",
    ];
  });
}

/** `+4 µs (−3 to +9)`: the median extra time per call over the rounds and its interquartile range. */
function extraMicros({ median, q1, q3 }: Spread): string {
  const signed = (ms: number) => `${ms >= 0 ? "+" : "−"}${micros(Math.abs(ms))}`;
  return `${signed(median)} (${signed(q1).replace(" µs", "")} to ${signed(q3)})`;
}
