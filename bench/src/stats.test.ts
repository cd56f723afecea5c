import { describe, expect, it } from "vitest";
import { median, percentile, perRound, spread, summarize } from "./stats.js";

describe("median", () => {
  it.each<[string, { given: number[]; want: number }]>([
    ["one sample", { given: [7], want: 7 }],
    ["odd count, unsorted", { given: [9, 1, 5], want: 5 }],
    ["even count: mean of the two middle values", { given: [4, 1, 3, 2], want: 2.5 }],
    ["duplicates", { given: [2, 2, 2, 9], want: 2 }],
  ])("%s", (_, { given, want }) => {
    expect(median(given)).toBe(want);
  });

  it("does not reorder its input", () => {
    const samples = [3, 1, 2];
    median(samples);
    expect(samples).toEqual([3, 1, 2]);
  });

  it("refuses no samples", () => {
    expect(() => median([])).toThrow(RangeError);
  });
});

describe("percentile", () => {
  const hundred = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1, reversed on purpose

  it.each<[string, { given: number[]; fraction: number; want: number }]>([
    ["p99 of 1..100 is the 99th value", { given: hundred, fraction: 0.99, want: 99 }],
    ["p50 of 1..100 is the 50th value (nearest rank)", { given: hundred, fraction: 0.5, want: 50 }],
    ["p100 is the maximum", { given: hundred, fraction: 1, want: 100 }],
    ["p0 is the minimum", { given: hundred, fraction: 0, want: 1 }],
    ["p99 of a few samples is the largest", { given: [5, 1, 3], fraction: 0.99, want: 5 }],
    [
      "one slow call in 1000 stays above p99",
      { given: [...Array(999).fill(1), 500], fraction: 0.99, want: 1 },
    ],
  ])("%s", (_, { given, fraction, want }) => {
    expect(percentile(given, fraction)).toBe(want);
  });

  it("refuses a fraction outside [0, 1] and no samples", () => {
    expect(() => percentile([1], 1.5)).toThrow(RangeError);
    expect(() => percentile([1], Number.NaN)).toThrow(RangeError);
    expect(() => percentile([], 0.5)).toThrow(RangeError);
  });
});

describe("summarize", () => {
  it("gives count, median and p99", () => {
    expect(summarize([1, 2, 3, 4, 100])).toEqual({ count: 5, median: 3, p99: 100 });
  });
});

describe("spread", () => {
  it("is the median and the nearest-rank quartiles of the rounds", () => {
    expect(spread([8, 1, 2, 7, 3, 6, 4, 5])).toEqual({ median: 4.5, q1: 2, q3: 6 });
  });

  it("refuses no rounds", () => {
    expect(() => spread([])).toThrow(RangeError);
  });
});

describe("perRound", () => {
  it("pairs the rounds both have, in order", () => {
    expect(perRound([2, 9, 4], [1, 3], (a, b) => a / b)).toEqual([2, 3]);
  });
});
