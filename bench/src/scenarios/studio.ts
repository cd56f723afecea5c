// The three Studio operations, each made three ways with the same URL, headers and body:
// (a) raw fetch, the floor; (b) bare openapi-fetch, the library the client is built on; (b') openapi-fetch
// given a 60 s AbortSignal.timeout per call, the fair comparison (a timeout is what a caller would add, and
// fetch following a signal costs something); (c) @finetune-studio/client with its defaults on: input
// validation, 2 retries, a 60 s timeout per attempt.
import { createStudioClient } from "@finetune-studio/client";
import type { paths, TraceUpdate } from "@finetune-studio/types";
import createClient from "openapi-fetch";
import type { Scenario } from "../measure/timing.js";
import { ids, requests } from "../server/answers.js";
import { dataOf, okJson } from "./responses.js";

/** The client's default per-attempt timeout, given to openapi-fetch too in the "with a timeout" row. */
const TIMEOUT_MS = 60_000;
/** Not a secret: the answering server ignores it. It is here so every caller sends the same header. */
const TOKEN = "bench-token";

/** The row the client's target is measured against. */
export const WITH_TIMEOUT = "openapi-fetch + timeout signal";

/** What dataOf reads of an openapi-fetch result. */
type Answer = Parameters<typeof dataOf>[0];

export interface Operation {
  readonly name: string;
  readonly scenarios: readonly Scenario[];
}

export function studioOperations(baseUrl: string): Operation[] {
  const { projectId, snapshotId, traceId } = ids;
  const update = requests.traceUpdate as TraceUpdate;
  const headers = { Authorization: `Bearer ${TOKEN}` };
  const jsonHeaders = { ...headers, "Content-Type": "application/json" };
  const bare = createClient<paths>({ baseUrl, headers });
  const client = createStudioClient({ baseUrl, token: TOKEN, maxRetries: 2, timeoutMs: TIMEOUT_MS });

  /** The openapi-fetch rows of one operation: bare, then given a timeout signal per call. */
  const openapiFetch = (call: (extra: { signal?: AbortSignal }) => Promise<Answer>): Scenario[] => [
    { caller: "openapi-fetch", call: async () => dataOf(await call({})) },
    {
      caller: WITH_TIMEOUT,
      call: async () => dataOf(await call({ signal: AbortSignal.timeout(TIMEOUT_MS) })),
      baseline: true,
    },
  ];

  return [
    {
      name: "getProjectTree",
      scenarios: [
        {
          caller: "raw fetch",
          call: async () =>
            okJson(await fetch(`${baseUrl}/api/v1/public/projects/${projectId}`, { headers })),
        },
        ...openapiFetch((extra) =>
          bare.GET("/api/v1/public/projects/{projectId}", { params: { path: { projectId } }, ...extra }),
        ),
        { caller: "@finetune-studio/client", call: () => client.getProjectTree(projectId) },
      ],
    },
    {
      name: "getRecommendations",
      scenarios: [
        {
          caller: "raw fetch",
          call: async () =>
            okJson(await fetch(`${baseUrl}/api/v1/public/recommendations/${snapshotId}`, { headers })),
        },
        ...openapiFetch((extra) =>
          bare.GET("/api/v1/public/recommendations/{snapshotId}", {
            params: { path: { snapshotId } },
            ...extra,
          }),
        ),
        { caller: "@finetune-studio/client", call: () => client.getRecommendations(snapshotId) },
      ],
    },
    {
      name: "updateTrace",
      scenarios: [
        {
          caller: "raw fetch",
          call: async () =>
            okJson(
              await fetch(`${baseUrl}/api/v1/traces/${traceId}`, {
                method: "PUT",
                headers: jsonHeaders,
                body: JSON.stringify(update),
              }),
            ),
        },
        ...openapiFetch((extra) =>
          bare.PUT("/api/v1/traces/{id}", { params: { path: { id: traceId } }, body: update, ...extra }),
        ),
        { caller: "@finetune-studio/client", call: () => client.updateTrace(traceId, update) },
      ],
    },
  ];
}
