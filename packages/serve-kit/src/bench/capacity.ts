import type { BenchMetrics } from "./metrics.js";

/** One load level of a sweep: a request rate or a concurrency, and what it measured. */
export interface SweepPoint {
  /** The load: requests per second (Infinity: all at once), or the requests open at once it reached. */
  load: number;
  metrics: BenchMetrics;
}

/** What a sweep says the server it loaded serves within the SLOs, per instance, and what a target needs. */
export interface CapacityAnswer {
  /** The share of requests that must meet every SLO for a load to count as served. */
  attainment: number;
  /** The highest load served within the SLOs (null when even the lowest was not), and its throughput. */
  highestLoad: number | null;
  /** The good requests per second of the whole server measured (a fleet's together) at that load. */
  requestsPerSecond: number | null;
  /** How many instances served what was measured: 1 for one vLLM, N for a fleet of N behind its balancer. */
  measuredInstances: number;
  /** `requestsPerSecond` per instance: the fleet's capacity over its instances. */
  perInstanceRequestsPerSecond: number | null;
  /** The first load past it, where the SLOs stopped holding (null when every load held). */
  firstFailingLoad: number | null;
  /** For a target rate: instances needed, sized at `headroom` below each instance's measured capacity. */
  instances: number | null;
  headroom: number;
}

/**
 * The knee of a sweep: walking up the loads, the last one at which at least `attainment` of the requests
 * met every SLO (and none failed for another reason past that share). A sweep through a fleet's balancer
 * measures the fleet: `instances` (default 1) says how many instances stood behind it, and each serves the
 * fleet's capacity over that count (what the balancer spread to it). Instances for `targetRps` are
 * ceil(target / (capacity per instance × (1 - headroom))): the headroom keeps each instance below its knee
 * when traffic bursts or an instance restarts.
 */
export function capacityFromSweep(
  points: readonly SweepPoint[],
  options: { attainment?: number; headroom?: number; targetRps?: number; instances?: number } = {},
): CapacityAnswer {
  const attainment = options.attainment ?? 0.95;
  const headroom = options.headroom ?? 0.2;
  const measuredInstances = options.instances ?? 1;
  if (!Number.isInteger(measuredInstances) || measuredInstances < 1) {
    throw new RangeError(`instances: must be a whole number of 1 or more (given ${measuredInstances})`);
  }
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
  const perInstance = rps === null ? null : rps / measuredInstances;
  const instances =
    options.targetRps === undefined || perInstance === null || perInstance <= 0
      ? null
      : Math.max(1, Math.ceil(options.targetRps / (perInstance * (1 - headroom))));
  return {
    attainment,
    highestLoad: served?.load ?? null,
    requestsPerSecond: rps,
    measuredInstances,
    perInstanceRequestsPerSecond: perInstance,
    firstFailingLoad: failing?.load ?? null,
    instances,
    headroom,
  };
}

function shareCompleted(metrics: BenchMetrics): number {
  const total = metrics.completed + metrics.failed;
  return total === 0 ? 0 : metrics.completed / total;
}
