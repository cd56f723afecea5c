import { describe, expect, it } from "vitest";
import { backoffMs, isRetryableStatus, retryAfterMs } from "./retry.js";

describe("backoffMs", () => {
  it.each([
    [1, 500],
    [2, 1_000],
    [3, 2_000],
    [4, 4_000],
    [5, 8_000],
    [9, 8_000],
  ])("waits %i -> %i ms without jitter, capped at 8 s", (retry, want) => {
    expect(backoffMs(retry, () => 0)).toBe(want);
  });

  it("shortens by at most a quarter for jitter", () => {
    expect(backoffMs(1, () => 0.999_999)).toBe(375);
  });
});

describe("retryAfterMs", () => {
  const now = Date.UTC(2030, 0, 1);
  it.each<[string, Record<string, string>, number | undefined]>([
    ["delay-seconds", { "retry-after": "7" }, 7_000],
    ["zero", { "retry-after": "0" }, 0],
    ["an HTTP date", { "retry-after": "Tue, 01 Jan 2030 00:00:05 GMT" }, 5_000],
    ["a date in the past", { "retry-after": "Mon, 31 Dec 2029 23:00:00 GMT" }, 0],
    ["retry-after-ms, which wins", { "retry-after-ms": "250.5", "retry-after": "7" }, 251],
    ["garbage", { "retry-after": "soon" }, undefined],
    ["a negative number", { "retry-after": "-3" }, undefined],
    ["nothing", {}, undefined],
  ])("reads %s", (_, headers, want) => {
    expect(retryAfterMs(new Headers(headers), now)).toBe(want);
  });
});

describe("isRetryableStatus", () => {
  it("retries 408, 409, 429 and 5xx only", () => {
    const statuses = [400, 401, 403, 404, 408, 409, 410, 422, 429, 500, 502, 503, 504, 599];
    expect(statuses.filter(isRetryableStatus)).toEqual([408, 409, 429, 500, 502, 503, 504, 599]);
  });
});
