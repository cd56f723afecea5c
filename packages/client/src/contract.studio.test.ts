// Every Studio operation and helper against `prism mock --errors` on the Studio contract: a request that
// breaks the contract (path, uuid, body, missing bearer token) gets an error answer, so the test fails.
// `Prefer: example=<name>` picks the contract's named example; `Prefer: code=<status>` an error answer.
import { describe, expect, inject, it } from "vitest";
import {
  type StudioApiError,
  StudioAuthError,
  StudioNotFoundError,
  StudioRateLimitError,
  StudioRecommendationsFailedError,
  StudioServerError,
  StudioTimeoutError,
} from "./errors.js";
import type { StudioRequestLog } from "./logger.js";
import { createStudioClient } from "./studio.js";
import {
  completedRecommendations,
  emptyTree,
  failedRecommendations,
  fullTree,
  ids,
  processingRecommendations,
  scoredTrace,
} from "./test/fixtures.js";
import { findNodes, flattenTree } from "./tree.js";

const baseUrl = inject("studioMockUrl");
const token = "contract-test-token";

/** A client whose every request asks Prism for `prefer` (an example name or an error code). */
function studio(
  prefer?: string,
  extra: { maxRetries?: number; logger?: (e: StudioRequestLog) => void } = {},
) {
  return createStudioClient({ baseUrl, token, headers: prefer ? { Prefer: prefer } : {}, ...extra });
}

describe("getProjectTree", () => {
  it.each([
    ["fullTree", fullTree],
    ["emptyProject", emptyTree],
  ])("reads the %s example", async (example, want) => {
    await expect(studio(`example=${example}`).getProjectTree(ids.project)).resolves.toEqual(want);
  });

  it("feeds the tree helpers", async () => {
    const tree = await studio("example=fullTree").getProjectTree(ids.project);
    expect(findNodes(tree, "experiment").map((node) => node.label)).toEqual([
      "Experiment #1",
      "Experiment #2",
    ]);
    expect(flattenTree(tree).map(({ node }) => node.type)).toEqual([
      "project",
      "dataset",
      "snapshot",
      "finetuning-job",
      "experiment",
      "experiment",
    ]);
  });
});

describe("getRecommendations", () => {
  it.each([
    ["processing", processingRecommendations],
    ["completed", completedRecommendations],
    ["failed", failedRecommendations],
  ])("reads the %s example", async (example, want) => {
    const recommendations = await studio(`example=${example}`).getRecommendations(ids.snapshot);
    expect(recommendations).toEqual(want);
    expect(recommendations.status).toBe(example);
  });
});

describe("waitForRecommendations", () => {
  it("resolves on the completed example", async () => {
    const polls: string[] = [];
    const result = await studio("example=completed").waitForRecommendations(ids.snapshot, {
      onPoll: (r) => polls.push(r.status),
    });
    expect(result).toEqual(completedRecommendations);
    expect(polls).toEqual(["completed"]);
  });

  it("rejects with StudioRecommendationsFailedError on the failed example", async () => {
    const error = await studio("example=failed")
      .waitForRecommendations(ids.snapshot)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioRecommendationsFailedError);
    expect((error as StudioRecommendationsFailedError).recommendations).toEqual(failedRecommendations);
  });

  it("polls the processing example until it times out", async () => {
    const polls: string[] = [];
    const error = await studio("example=processing")
      .waitForRecommendations(ids.snapshot, {
        intervalMs: 20,
        timeoutMs: 1_500, // Prism answers in tens of ms alone, in hundreds on a busy machine
        onPoll: (r) => polls.push(r.status),
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioTimeoutError);
    expect(polls.length).toBeGreaterThanOrEqual(2);
    expect(new Set(polls)).toEqual(new Set(["processing"]));
  });
});

describe("updateTrace", () => {
  it.each([
    ["a score and feedback", { score: 0.85, feedback: "Correct, but too formal." }],
    ["a project link", { projectId: ids.project }],
    ["clearing feedback and project", { feedback: null, projectId: null }],
    ["the boundaries: score 0", { score: 0 }],
    ["the boundaries: score 1", { score: 1 }],
    // 2048 code points are 4096 UTF-16 units: the mock's JSON Schema validator must count as we do.
    ["2048 astral characters of feedback", { feedback: "😀".repeat(2048) }],
    ["an empty update", {}],
  ])("sends %s in a body the contract accepts", async (_, update) => {
    await expect(studio("example=scored").updateTrace(ids.trace, update)).resolves.toEqual(scoredTrace);
  });

  it("reads the unscored example", async () => {
    const trace = await studio("example=unscored").updateTrace(ids.trace, { feedback: null });
    expect(trace).toMatchObject({ score: null, feedback: null, projectId: null, processingStatus: "none" });
  });
});

describe("errors from the mock", () => {
  it.each<[number, typeof StudioApiError, string]>([
    [401, StudioAuthError, "Missing or invalid bearer token."],
    [403, StudioAuthError, "This token may not access this resource."],
    [404, StudioNotFoundError, "Not found."],
    [429, StudioRateLimitError, "Too many requests."],
    [500, StudioServerError, "Internal server error."],
  ])("raises %i as the matching error, with the body's message", async (status, type, message) => {
    const error = await studio(`code=${status}`, { maxRetries: 0 })
      .getProjectTree(ids.project)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(type);
    expect(error).toMatchObject({ status, body: { message } });
    expect((error as Error).message).toContain(message);
  });

  it("retries a 5xx from the mock maxRetries times, and logs each attempt without the token", async () => {
    const entries: StudioRequestLog[] = [];
    const error = await studio("code=500", { maxRetries: 1, logger: (e) => entries.push(e) })
      .getRecommendations(ids.snapshot)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioServerError);
    expect(entries.map((e) => [e.attempt, e.status, e.outcome])).toEqual([
      [1, 500, "http-error"],
      [2, 500, "http-error"],
    ]);
    expect(JSON.stringify(entries)).not.toContain(token);
  });
});

// These go around the client's checks on purpose: they prove that the mock refuses what breaks the
// contract, so the tests above would fail if the client sent such a request.
describe("the mock is strict", () => {
  const raw = studio().raw;

  it("refuses a request without the bearer token", async () => {
    const { response } = await raw.GET("/api/v1/public/projects/{projectId}", {
      params: { path: { projectId: ids.project } },
      headers: { Authorization: null },
    } as never);
    expect(response.status).toBe(401);
  });

  it("refuses an id that is not a uuid", async () => {
    const { response } = await raw.GET("/api/v1/public/projects/{projectId}", {
      params: { path: { projectId: "not-a-uuid" } },
    });
    expect(response.status).toBe(400);
    expect(response.headers.get("sl-violations")).toContain("uuid");
  });

  it.each([
    ["a score above 1", { score: 1.5 }],
    ["feedback of 2049 code points", { feedback: "a".repeat(2049) }],
    ["an unknown field", { scroe: 1 }],
    ["a null score", { score: null }],
  ])("refuses a trace update with %s", async (_, body) => {
    const { response } = await raw.PUT("/api/v1/traces/{id}", {
      params: { path: { id: ids.trace } },
      body: body as never,
    });
    expect(response.status).toBe(422);
    expect(response.headers.get("sl-violations")).toContain("body");
  });
});

// The same promises against a real studio, when one is named: STUDIO_BASE_URL and STUDIO_TOKEN, plus the
// ids to read (STUDIO_PROJECT_ID, STUDIO_SNAPSHOT_ID). Only read-only operations run, unless STUDIO_TRACE_ID
// names a trace the token may update: it then gets an empty update, which changes nothing.
const real = {
  baseUrl: process.env.STUDIO_BASE_URL,
  token: process.env.STUDIO_TOKEN,
  projectId: process.env.STUDIO_PROJECT_ID,
  snapshotId: process.env.STUDIO_SNAPSHOT_ID,
  traceId: process.env.STUDIO_TRACE_ID,
};
const realStudio = real.baseUrl !== undefined && real.token !== undefined;
if (!realStudio) {
  console.log(
    "contract.studio.test: STUDIO_BASE_URL and STUDIO_TOKEN are not set, so the tests against a real studio are skipped",
  );
}

describe.skipIf(!realStudio)("against a real studio (STUDIO_BASE_URL)", () => {
  const client = () => createStudioClient({ baseUrl: real.baseUrl ?? "", token: real.token ?? "" });

  it.skipIf(real.projectId === undefined)("reads the project tree of STUDIO_PROJECT_ID", async () => {
    const tree = await client().getProjectTree(real.projectId ?? "");
    expect(tree.project.type).toBe("project");
    expect(tree.project.id.toLowerCase()).toBe(real.projectId?.toLowerCase());
    expect(flattenTree(tree).length).toBeGreaterThanOrEqual(1);
  });

  it.skipIf(real.snapshotId === undefined)("reads the recommendations of STUDIO_SNAPSHOT_ID", async () => {
    const recommendations = await client().getRecommendations(real.snapshotId ?? "");
    expect(["processing", "completed", "failed"]).toContain(recommendations.status);
  });

  it("answers 404 (or 403) for a project that does not exist", async () => {
    const error = await client()
      .getProjectTree("00000000-0000-4000-8000-000000000000")
      .catch((e: unknown) => e);
    expect([StudioNotFoundError, StudioAuthError].some((type) => error instanceof type)).toBe(true);
  });

  it("answers 401 to a token it does not know, and the token is nowhere in the error", async () => {
    const wrong = "not-a-real-token-0123456789";
    const error = await createStudioClient({ baseUrl: real.baseUrl ?? "", token: wrong })
      .getProjectTree(real.projectId ?? "00000000-0000-4000-8000-000000000000")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioAuthError);
    expect(JSON.stringify(error)).not.toContain(wrong);
  });

  it.skipIf(real.traceId === undefined)(
    "applies an empty update to STUDIO_TRACE_ID and returns that trace",
    async () => {
      const trace = await client().updateTrace(real.traceId ?? "", {});
      expect(trace.id.toLowerCase()).toBe(real.traceId?.toLowerCase());
    },
  );
});
