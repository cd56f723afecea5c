import type { BenchMetrics } from "./metrics.js";

/** One load level of a sweep: a request rate or a concurrency, and what it measured. */
export interface SweepPoint {
  /** The load: requests per second (Infinity: all at once), or the requests open at once it reached. */
  load: number;
  metrics: BenchMetrics;
}

/** What a sweep says one instance serves within the SLOs, and what a target traffic needs. */
export interface CapacityAnswer {
  /** The share of requests that must meet every SLO for a load to count as served. */
  attainment: number;
  /** The highest load served within the SLOs (null when even the lowest was not), and its throughput. */
  highestLoad: number | null;
  requestsPerSecond: number | null;
  /** The first load past it, where the SLOs stopped holding (null when every load held). */
  firstFailingLoad: number | null;
  /** For a target rate: instances needed, sized at `headroom` below the measured capacity. */
  instances: number | null;
  headroom: number;
}

/**
 * The knee of a sweep: walking up the loads, the last one at which at least `attainment` of the requests
 * met every SLO (and none failed for another reason past that share). Instances for `targetRps` are
 * ceil(target / (capacity × (1 - headroom))): the headroom keeps each instance below its knee when traffic
 * bursts or an instance restarts.
 */
export function capacityFromSweep(
  points: readonly SweepPoint[],
  options: { attainment?: number; headroom?: number; targetRps?: number } = {},
): CapacityAnswer {
  const attainment = options.attainment ?? 0.95;
  const headroom = options.headroom ?? 0.2;
  const sorted = [...points].sort((a, b) => a.load - b.load);
  let served: SweepPoint | undefined;
  let failing: SweepPoint | undefined;
  for (const point of sorted) {
    const share = point.metrics.goodput?.share ?? shareCompleted(point.metrics);
    if (share >= attainment) served = point;
    else {
      failing = point;
      break;
    }
  }
  const rps =
    served === undefined
      ? null
      : (served.metrics.goodput?.requestsPerSecond ?? served.metrics.requestThroughput);
  const instances =
    options.targetRps === undefined || rps === null || rps <= 0
      ? null
      : Math.max(1, Math.ceil(options.targetRps / (rps * (1 - headroom))));
  return {
    attainment,
    highestLoad: served?.load ?? null,
    requestsPerSecond: rps,
    firstFailingLoad: failing?.load ?? null,
    instances,
    headroom,
  };
}

function shareCompleted(metrics: BenchMetrics): number {
  const total = metrics.completed + metrics.failed;
  return total === 0 ? 0 : metrics.completed / total;
}
