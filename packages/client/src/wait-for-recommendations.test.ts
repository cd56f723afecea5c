import { afterEach, describe, expect, it, vi } from "vitest";
import { StudioRecommendationsFailedError, StudioTimeoutError } from "./errors.js";
import { createStudioClient } from "./studio.js";
import { fakeFetch, hangingFetch, json } from "./test/fake-fetch.js";
import {
  completedRecommendations,
  failedRecommendations,
  ids,
  processingRecommendations,
} from "./test/fixtures.js";

const baseUrl = "https://studio.example.net";
const token = "tok_poll";

afterEach(() => {
  vi.useRealTimers();
});

describe("waitForRecommendations", () => {
  it("polls while processing and resolves with the completed recommendations", async () => {
    const fetch = fakeFetch(
      json(processingRecommendations),
      json(processingRecommendations),
      json(completedRecommendations),
    );
    const studio = createStudioClient({ baseUrl, token, fetch });
    const polls: [string, number][] = [];
    const result = await studio.waitForRecommendations(ids.snapshot, {
      intervalMs: 1,
      onPoll: (r, poll) => polls.push([r.status, poll]),
    });
    expect(result).toEqual(completedRecommendations);
    expect(result.status).toBe("completed");
    expect(polls).toEqual([
      ["processing", 1],
      ["processing", 2],
      ["completed", 3],
    ]);
  });

  it("pauses intervalMs first, then a little longer each time", async () => {
    vi.useFakeTimers();
    const fetch = fakeFetch(json(processingRecommendations));
    const studio = createStudioClient({ baseUrl, token, fetch });
    const result = studio
      .waitForRecommendations(ids.snapshot, { timeoutMs: 60_000 })
      .catch((e: unknown) => e);
    const counts: number[] = [];
    for (const step of [0, 999, 1, 1_499, 1, 2_249, 1]) {
      await vi.advanceTimersByTimeAsync(step);
      counts.push(fetch.requests.length);
    }
    expect(counts).toEqual([1, 1, 2, 2, 3, 3, 4]);
    await vi.advanceTimersByTimeAsync(60_000);
    await expect(result).resolves.toBeInstanceOf(StudioTimeoutError);
  });

  it("rejects with StudioRecommendationsFailedError carrying the answer when the service failed", async () => {
    const fetch = fakeFetch(json(processingRecommendations), json(failedRecommendations));
    const studio = createStudioClient({ baseUrl, token, fetch });
    const error = await studio
      .waitForRecommendations(ids.snapshot, { intervalMs: 1 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioRecommendationsFailedError);
    expect((error as StudioRecommendationsFailedError).recommendations).toEqual(failedRecommendations);
  });

  it("keeps polling through a status it does not know yet", async () => {
    const queued = { ...processingRecommendations, status: "queued" };
    const fetch = fakeFetch(json(queued), json(completedRecommendations));
    const studio = createStudioClient({ baseUrl, token, fetch });
    await expect(studio.waitForRecommendations(ids.snapshot, { intervalMs: 1 })).resolves.toEqual(
      completedRecommendations,
    );
  });

  it("rejects with StudioTimeoutError once timeoutMs has passed", async () => {
    const fetch = fakeFetch(json(processingRecommendations));
    const studio = createStudioClient({ baseUrl, token, fetch });
    const error = await studio
      .waitForRecommendations(ids.snapshot, { intervalMs: 5, timeoutMs: 40 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioTimeoutError);
    expect(error).toMatchObject({ timeoutMs: 40, message: expect.stringContaining("still processing") });
  });

  it("cuts a request in flight when the deadline passes", async () => {
    const studio = createStudioClient({ baseUrl, token, fetch: hangingFetch() });
    const error = await studio
      .waitForRecommendations(ids.snapshot, { timeoutMs: 20 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioTimeoutError);
    expect(error).toMatchObject({ timeoutMs: 20 });
  });

  it("stops at once when its signal aborts, with the signal's reason", async () => {
    const fetch = fakeFetch(json(processingRecommendations));
    const studio = createStudioClient({ baseUrl, token, fetch });
    const controller = new AbortController();
    const result = studio.waitForRecommendations(ids.snapshot, {
      intervalMs: 60_000,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error("cancelled by user")), 5);
    await expect(result).rejects.toThrow("cancelled by user");
    expect(fetch.requests).toHaveLength(1);
  });
});
