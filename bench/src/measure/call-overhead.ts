// Latency one call at a time, and throughput with many callers, of each way of making the same call. The
// first scenario of a group is the reference (raw fetch): the other rows say what they cost on top of it.
import { count, micros, perSecond, ratio } from "../format.js";
import { summarize } from "../stats.js";
import { markdownTable } from "../table.js";
import { concurrentThroughput, type LoopSettings, type Scenario, sequentialLatencies } from "./timing.js";

export interface CallGroup {
  /** The operation: every scenario of the group makes this same call. */
  readonly name: string;
  /** The first one is the reference the others are compared with. */
  readonly scenarios: readonly Scenario[];
}

export interface CallSettings {
  readonly sequential: LoopSettings;
  readonly concurrent: LoopSettings;
  readonly callers: number;
}

export async function measureCalls(groups: readonly CallGroup[], settings: CallSettings): Promise<string> {
  const rows: string[][] = [];
  for (const group of groups) {
    const latencies = await sequentialLatencies(group.scenarios, settings.sequential);
    const throughputs = await concurrentThroughput(group.scenarios, settings.callers, settings.concurrent);
    const [reference] = group.scenarios;
    if (!reference) continue;
    const referenceLatency = summarize(latencies.get(reference) ?? []);
    const referenceThroughput = throughputs.get(reference) ?? 0;
    for (const scenario of group.scenarios) {
      const latency = summarize(latencies.get(scenario) ?? []);
      const throughput = throughputs.get(scenario) ?? 0;
      const extra = latency.median - referenceLatency.median;
      rows.push([
        group.name,
        scenario.caller,
        micros(latency.median),
        micros(latency.p99),
        scenario === reference
          ? "1.00×"
          : `${ratio(latency.median, referenceLatency.median)} (${extra >= 0 ? "+" : ""}${micros(extra)})`,
        perSecond(throughput),
        ratio(throughput, referenceThroughput),
      ]);
    }
  }
  return markdownTable(
    [
      "call",
      "caller",
      "median",
      "p99",
      "median vs raw fetch",
      `throughput, ${count(settings.callers)} callers`,
      "throughput vs raw fetch",
    ],
    rows,
    ["left", "left"],
  );
}
