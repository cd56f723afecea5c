import { describe, expect, it } from "vitest";
import { percentile } from "./metrics.js";
import { type StagedRequest, summarizeStages } from "./stage-summary.js";
import { parseStages, requestStages, stagedArrivalTimesMs } from "./stages.js";

const request = (stage: number, ok: boolean, startMs: number, ttftMs = 0): StagedRequest => ({
  stage,
  ok,
  startMs,
  ttftMs,
  latencyMs: ttftMs + 10,
});

describe("requestStages", () => {
  it("names the stage of each scheduled request, in the schedule's order, a pause naming none", () => {
    const stages = parseStages("2:2s,0:1s,3:1s");
    expect(requestStages(stages)).toEqual([1, 1, 1, 1, 3, 3, 3]);
    expect(requestStages(stages)).toHaveLength(stagedArrivalTimesMs(stages).length);
  });

  it("puts a stage's last request, sent at the stage's very end, in that stage", () => {
    const stages = parseStages("1:2s,4:1s");
    const times = stagedArrivalTimesMs(stages, Number.POSITIVE_INFINITY);
    expect(times[1]).toBe(2000); // the end of stage 1 and the start of stage 2
    expect(requestStages(stages)[1]).toBe(1);
  });
});

describe("summarizeStages", () => {
  const stages = parseStages("1:2s,4:1s,0:1s");

  it("counts each stage's requests by the stage that scheduled them, however late they were sent or answered", () => {
    const ttfts = [100, 200, 300, 900];
    const requests = [
      request(1, true, 0, 50),
      request(1, false, 2100), // sent late, into stage 2's time: still stage 1's
      ...ttfts.map((ttft, i) => request(2, true, 2000 + i * 250, ttft)),
      request(2, false, 2900),
    ];
    expect(summarizeStages(stages, requests)).toEqual([
      {
        stage: 1,
        rate: 1,
        startMs: 0,
        durationMs: 2000,
        sent: 2,
        answered: 1,
        failed: 1,
        ttftP50Ms: 50,
        ttftP95Ms: 50,
      },
      {
        stage: 2,
        rate: 4,
        startMs: 2000,
        durationMs: 1000,
        sent: 5,
        answered: 4,
        failed: 1,
        ttftP50Ms: 250,
        ttftP95Ms: percentile(ttfts, 95),
      },
      {
        stage: 3,
        rate: 0,
        startMs: 3000,
        durationMs: 1000,
        sent: 0,
        answered: 0,
        failed: 0,
        ttftP50Ms: null,
        ttftP95Ms: null,
      },
    ]);
    // numpy's linear interpolation: rank 2.85 between 300 and 900.
    expect(percentile(ttfts, 95)).toBeCloseTo(810, 9);
  });

  it("a stage whose requests all failed has no TTFT rather than 0, and a request of no stage is left out", () => {
    const [first] = summarizeStages(stages, [request(1, false, 0), request(9, true, 0, 5)]);
    expect(first).toMatchObject({ sent: 1, answered: 0, failed: 1, ttftP50Ms: null, ttftP95Ms: null });
  });
});
