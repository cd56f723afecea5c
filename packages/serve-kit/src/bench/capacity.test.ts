import { describe, expect, it } from "vitest";
import { capacityFromSweep, type SweepPoint } from "./capacity.js";
import { computeBenchMetrics } from "./metrics.js";

// A sweep through a fleet's balancer measures the fleet: the target is sized per instance.
describe("capacityFromSweep through a fleet", () => {
  const point = (load: number, rps: number): SweepPoint => ({
    load,
    metrics: {
      ...computeBenchMetrics([], 1),
      requestThroughput: rps,
      goodput: { requestsPerSecond: rps, share: 1, good: 0 },
    },
  });

  it("sizes a target per instance: a fleet of 2 serving 10 good req/s is 5 per instance", () => {
    const answer = capacityFromSweep([point(5, 5), point(10, 10)], { targetRps: 30, instances: 2 });
    expect(answer).toMatchObject({
      requestsPerSecond: 10,
      measuredInstances: 2,
      perInstanceRequestsPerSecond: 5,
    });
    // ceil(30 / (5 × 0.8)) = ceil(7.5) = 8; sized as one instance it would have said ceil(30 / 8) = 4.
    expect(answer.instances).toBe(8);
    expect(capacityFromSweep([point(5, 5), point(10, 10)], { targetRps: 30 }).instances).toBe(4);
  });

  it("counts one instance when not told, and refuses a count that is no instance", () => {
    expect(capacityFromSweep([point(1, 4)]).measuredInstances).toBe(1);
    expect(() => capacityFromSweep([point(1, 4)], { instances: 0 })).toThrow(
      /instances: must be a whole number/,
    );
  });
});
