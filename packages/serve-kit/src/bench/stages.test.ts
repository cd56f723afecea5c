import { describe, expect, it } from "vitest";
import { ServeConfigError } from "../errors.js";
import { arrivalTimesMs, seededRandom } from "./schedule.js";
import { MAX_STAGES, parseStages, stageBoundariesMs, stagedArrivalTimesMs, stageRequests } from "./stages.js";

describe("parseStages", () => {
  it("reads rate:duration stages with s, m and h", () => {
    expect(parseStages("2:60s,12:2m, 0.5:1h")).toEqual([
      { rate: 2, durationMs: 60_000 },
      { rate: 12, durationMs: 120_000 },
      { rate: 0.5, durationMs: 3_600_000 },
    ]);
  });

  it("takes a stage of rate 0 (a pause), as k6's stages take a target of 0", () => {
    expect(parseStages("0:10s,4:10s")).toEqual([
      { rate: 0, durationMs: 10_000 },
      { rate: 4, durationMs: 10_000 },
    ]);
  });

  it.each([
    ["", /--stages: must be rate:duration stages/],
    ["12", /^--stages: must be rate:duration stages .*; stage 1 \(12\) is not \(given "12"\)$/],
    ["2:60", /; stage 1 \(2:60\) is not/],
    ["2:60s,x:1m", /; stage 2 \(x:1m\) is not \(given "2:60s,x:1m"\)/],
    ["-2:60s", /; stage 1 \(-2:60s\) is not/],
    ["2:60d", /; stage 1 \(2:60d\) is not/],
    ["inf:60s", /; stage 1 \(inf:60s\) is not/],
    ["2:0s", /stage 1 \(2:0s\) must last at least 1s/],
    ["2:0.5s", /must last at least 1s/],
    ["0:60s,0:1m", /must send requests in one stage at least/],
    ["1:13h,1:12h", /must last at most 24h together/],
    ["5000:1h", /must schedule at most 1000000 requests together \(these ask 18000000\)/],
    [
      Array(MAX_STAGES + 1)
        .fill("1:1s")
        .join(","),
      /must list at most 32 stages/,
    ],
  ])("refuses %j, naming --stages, the rule and what was given", (text, message) => {
    let thrown: unknown;
    try {
      parseStages(text);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ServeConfigError);
    expect((thrown as ServeConfigError).field).toBe("--stages");
    expect((thrown as Error).message).toMatch(message);
  });

  it("names the field it is given", () => {
    expect(() => parseStages("nope", "stages")).toThrow(/^stages: /);
  });
});

describe("stage arrivals", () => {
  const stages = parseStages("2:10s,12:5s,1:10s");

  it("bounds each stage, and counts its requests as rate times duration", () => {
    expect(stageBoundariesMs(stages)).toEqual([0, 10_000, 15_000, 25_000]);
    expect(stages.map(stageRequests)).toEqual([20, 60, 10]);
    expect(stageRequests({ rate: 0.3, durationMs: 5_000 })).toBe(2);
  });

  it("sends each stage's requests within it, in order, the last at its end", () => {
    const times = stagedArrivalTimesMs(stages, 1, 7);
    expect(times).toHaveLength(90);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    const inStage = (from: number, to: number) => times.filter((t) => t > from && t <= to + 1e-6).length;
    expect([inStage(0, 10_000), inStage(10_000, 15_000), inStage(15_000, 25_000)]).toEqual([20, 60, 10]);
    expect(times[19]).toBeCloseTo(10_000, 6);
    expect(times[89]).toBeCloseTo(25_000, 6);
  });

  it("spaces them evenly with an infinite burstiness, as arrivalTimesMs does", () => {
    const even = stagedArrivalTimesMs(parseStages("2:2s,4:1s"), Number.POSITIVE_INFINITY);
    expect(even).toEqual([500, 1000, 1500, 2000, 2250, 2500, 2750, 3000]);
  });

  it("draws each stage as arrivalTimesMs draws a run, at the rate that fits its count in its duration", () => {
    // 0.3 req/s for 5 s is 2 requests, drawn at 0.4 req/s so the second goes at 5 s; then 12 at 4 req/s.
    const seeds = seededRandom(3);
    const first = Math.floor(seeds() * 2 ** 32);
    const second = Math.floor(seeds() * 2 ** 32);
    expect(stagedArrivalTimesMs(parseStages("0.3:5s,4:3s"), 1, 3)).toEqual([
      ...arrivalTimesMs(2, 0.4, 1, first),
      ...arrivalTimesMs(12, 4, 1, second).map((time) => 5_000 + time),
    ]);
  });

  it("gives the same schedule for the same seed, another for another", () => {
    expect(stagedArrivalTimesMs(stages, 1, 5)).toEqual(stagedArrivalTimesMs(stages, 1, 5));
    expect(stagedArrivalTimesMs(stages, 1, 5)).not.toEqual(stagedArrivalTimesMs(stages, 1, 6));
  });

  it("sends nothing in a stage of rate 0", () => {
    const times = stagedArrivalTimesMs(parseStages("1:2s,0:5s,1:2s"), Number.POSITIVE_INFINITY);
    expect(times).toEqual([1000, 2000, 8000, 9000]);
  });
});
