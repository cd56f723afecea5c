import { describe, expect, it } from "vitest";
import { ServeConfigError } from "../errors.js";
import { durationText, parseDuration } from "./duration.js";
import { parseScaleSignals } from "./scale-signals.js";
import { parseScalingRange } from "./scaling-range.js";

function refusal(run: () => unknown): ServeConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ServeConfigError) return error;
    throw error;
  }
  throw new Error("not refused");
}

describe("parseScalingRange", () => {
  it.each([
    ["3", { min: 3, max: 3 }],
    ["1..4", { min: 1, max: 4 }],
    ["2..2", { min: 2, max: 2 }],
  ])("reads %s", (text, want) => expect(parseScalingRange(text, "replicas")).toEqual(want));

  it.each([
    ["3..1", /MIN or more/],
    ["0..4", /start at 1 or more/],
    ["0", /start at 1 or more/],
    ["1..x", /N or a range MIN\.\.MAX/],
    ["a..b", /N or a range/],
    ["1..2..3", /N or a range/],
    ["-1..2", /N or a range/],
    ["1.5..2", /N or a range/],
    ["", /N or a range/],
  ])("refuses %s", (text, rule) => {
    const error = refusal(() => parseScalingRange(text, "replicas"));
    expect(error.field).toBe("replicas");
    expect(error.rule).toMatch(rule);
  });
});

describe("parseScaleSignals", () => {
  it.each([
    ["queue=5", { queue: 5 }],
    ["kv=0.8", { kv: 0.8 }],
    ["queue=3,kv=.5", { queue: 3, kv: 0.5 }],
    ["kv=1, queue=2.5", { queue: 2.5, kv: 1 }],
  ])("reads %s", (text, want) => expect(parseScaleSignals(text, "scaleOn")).toEqual(want));

  it.each([
    ["cpu=80", /unknown "cpu"/],
    ["queue=-1", /not negative/],
    ["queue=0", /above 0/],
    ["kv=1.2", /at most 1/],
    ["queue", /as queue=N/],
    ["queue=5,queue=6", /twice/],
    ["queue=5,", /unknown ""/],
  ])("refuses %s", (text, rule) => {
    const error = refusal(() => parseScaleSignals(text, "scaleOn"));
    expect(error.field).toBe("scaleOn");
    expect(error.rule).toMatch(rule);
  });
});

describe("parseDuration", () => {
  it.each([
    ["15s", 15],
    ["5m", 300],
    ["1h", 3600],
    ["90", 90],
  ])("reads %s", (text, seconds) => expect(parseDuration(text, "after")).toBe(seconds));

  it.each([["5 minutes"], ["-5s"], ["1.5m"], ["0s"], ["2d"], ["25h"]])("refuses %s", (text) => {
    expect(refusal(() => parseDuration(text, "after")).field).toBe("after");
  });

  it("says seconds in the largest unit that divides them", () => {
    expect([15, 90, 300, 7200].map(durationText)).toEqual(["15s", "90s", "5m", "2h"]);
  });
});
