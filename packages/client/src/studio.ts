import {
  getProjectTreeLimits,
  getRecommendationsLimits,
  type ProjectTree,
  type paths,
  type Recommendations,
  type Trace,
  type TraceUpdate,
  traceUpdateLimits,
  updateTraceLimits,
} from "@finetune-studio/types";
import type { Client } from "openapi-fetch";
import { StudioRecommendationsFailedError, StudioValidationError } from "./errors.js";
import { brokenProjectTree, brokenRecommendations, brokenTrace } from "./internal/answers.js";
import { createCore } from "./internal/core.js";
import { checkWaitOptions, poll } from "./internal/poll.js";
import { redact } from "./internal/redact.js";
import {
  assertCredential,
  assertFunction,
  checkLimit,
  checkObject,
  type Limit,
} from "./internal/validate.js";
import type { ClientOptions, RequestOptions } from "./options.js";

export interface StudioClientOptions extends ClientOptions {
  /** Your studio deployment, e.g. `https://studio.example.net`; every API path is relative to it. */
  baseUrl: string;
  /** The access token, sent as `Authorization: Bearer <token>`. Required. */
  token: string;
  /**
   * Create the client in a browser anyway. Off by default: a page's token can be read by anything that
   * runs in the page (extensions, injected scripts), so it belongs on a server.
   */
  dangerouslyAllowBrowser?: boolean;
}

export interface WaitForRecommendationsOptions {
  /** Pause after the first `processing` answer, growing gently from here. Default 1 000 ms. */
  intervalMs?: number;
  /** Give up with a StudioTimeoutError after this long. Default 600 000 ms (10 min). */
  timeoutMs?: number;
  /** Stops polling at once; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called with every answer, `processing` ones included; `poll` counts from 1. */
  onPoll?: (recommendations: Recommendations, poll: number) => void;
}

/** Recommendations the service has finished computing. */
export type CompletedRecommendations = Recommendations & { status: "completed" };

export interface StudioClient {
  /** `GET /api/v1/public/projects/{projectId}`: the project with its datasets, snapshots, jobs and experiments. */
  getProjectTree(projectId: string, options?: RequestOptions): Promise<ProjectTree>;
  /** `GET /api/v1/public/recommendations/{snapshotId}`: whatever state the recommendations are in now. */
  getRecommendations(snapshotId: string, options?: RequestOptions): Promise<Recommendations>;
  /**
   * Polls `getRecommendations` while `processing`; resolves on `completed`, rejects on `failed` or timeout.
   * Connection errors, timeouts, 408, 429 and 5xx mean "poll again later"; other errors stop it at once.
   */
  waitForRecommendations(
    snapshotId: string,
    options?: WaitForRecommendationsOptions,
  ): Promise<CompletedRecommendations>;
  /** `PUT /api/v1/traces/{id}`: sets the fields given (score, feedback, projectId); returns the whole trace. */
  updateTrace(traceId: string, update: TraceUpdate, options?: RequestOptions): Promise<Trace>;
  /**
   * The underlying openapi-fetch client (token and headers included), for what the helpers do not cover. Its
   * requests take the client's timeout, retries and byte bound too; an error answer is its `error`.
   */
  readonly raw: Client<paths>;
}

// The contract's limits, generated; one it drops is absent there, and then nothing is checked.
const pathLimit = (limits: { path: Record<string, Limit> } | undefined, name: string) => limits?.path[name];
const projectIdLimit = pathLimit(getProjectTreeLimits, "projectId");
const snapshotIdLimit = pathLimit(getRecommendationsLimits, "snapshotId");
const traceIdLimit = pathLimit(updateTraceLimits, "id");
const updateLimits: Record<string, Limit> = traceUpdateLimits ?? {};
// The contract refuses other fields (additionalProperties: false), and score alone is not nullable.
const TRACE_UPDATE_FIELDS = ["score", "feedback", "projectId"];

export function createStudioClient(options: StudioClientOptions): StudioClient {
  checkObject("options", options);
  refuseInBrowser(options.dangerouslyAllowBrowser);
  assertCredential("token", options.token, true);
  const secret = options.token;
  const core = createCore<paths>(options, {
    secret,
    headers: { authorization: `Bearer ${secret}` },
    timeoutMs: 60_000,
    maxRetries: 2,
  });

  // Each operation once: its input checked against the contract, then one declaration of its request and
  // of the check its answer must pass.
  const getRecommendations = async (snapshotId: string, callOptions?: RequestOptions) => {
    checkLimit("snapshotId", snapshotId, snapshotIdLimit);
    return core.run(
      {
        method: "GET",
        path: "/api/v1/public/recommendations/{snapshotId}",
        params: { path: { snapshotId } },
        check: (data) => brokenRecommendations(data, snapshotId),
      },
      callOptions,
    );
  };

  return {
    async getProjectTree(projectId, callOptions) {
      checkLimit("projectId", projectId, projectIdLimit);
      return core.run(
        {
          method: "GET",
          path: "/api/v1/public/projects/{projectId}",
          params: { path: { projectId } },
          check: brokenProjectTree,
        },
        callOptions,
      );
    },
    getRecommendations,
    waitForRecommendations: (snapshotId, waitOptions) =>
      waitForCompleted(getRecommendations, [secret], snapshotId, waitOptions),
    async updateTrace(traceId, update, callOptions) {
      checkLimit("traceId", traceId, traceIdLimit);
      return core.run(
        {
          method: "PUT",
          path: "/api/v1/traces/{id}",
          params: { path: { id: traceId } },
          body: checkTraceUpdate(update),
          check: (data) => brokenTrace(data, traceId),
        },
        callOptions,
      );
    },
    raw: core.api,
  };
}

/** Polls `getRecommendations` while `processing`: the steps of `waitForRecommendations`. */
async function waitForCompleted(
  getRecommendations: StudioClient["getRecommendations"],
  secrets: readonly string[],
  snapshotId: string,
  waitOptions: WaitForRecommendationsOptions | undefined,
): Promise<CompletedRecommendations> {
  checkLimit("snapshotId", snapshotId, snapshotIdLimit);
  const field = "waitForRecommendations options";
  const settings = checkWaitOptions(field, waitOptions, 1_000);
  const { onPoll } = waitOptions ?? {};
  assertFunction(`${field}.onPoll`, onPoll);
  return poll(
    {
      ...settings,
      maxIntervalMs: 10_000,
      timeoutMessage: (problem) =>
        `recommendations for snapshot ${snapshotId} were still processing after ${settings.timeoutMs} ms` +
        (problem === undefined ? "" : ` (the last poll failed: ${problem})`),
    },
    async (signal, count) => {
      // Each poll is one attempt: the wait itself retries, at its own pace, within its deadline.
      const recommendations = await getRecommendations(snapshotId, { signal, maxRetries: 0 });
      onPoll?.(recommendations, count);
      if (recommendations.status === "completed") return recommendations as CompletedRecommendations;
      if (recommendations.status === "failed") {
        throw new StudioRecommendationsFailedError(redact(recommendations, secrets));
      }
      // `processing`, or a status this version does not know yet: neither is final.
      return undefined;
    },
  );
}

/** The update as it will be sent: only the fields given, each checked against the contract's limits. */
function checkTraceUpdate(update: unknown): TraceUpdate {
  const fields = TRACE_UPDATE_FIELDS.join(", ");
  const given = checkObject("update", update, `must be an object with ${fields}`);
  const body: Record<string, unknown> = {};
  for (const key in given) {
    // A misspelt field fails here instead of being ignored.
    if (!TRACE_UPDATE_FIELDS.includes(key)) {
      throw new StudioValidationError(`update.${key}`, `is not a field of a trace update (${fields})`);
    }
    const value = given[key];
    if (value === undefined) continue;
    checkLimit(key, value, updateLimits[key], key !== "score");
    body[key] = value;
  }
  return body;
}

/** Refuses a page in a browser, where a token would be readable by every script the page runs, unless allowed. */
function refuseInBrowser(allowed: unknown): void {
  const scope = globalThis as { window?: unknown; document?: unknown };
  if (typeof scope.window !== "undefined" && typeof scope.document !== "undefined" && allowed !== true) {
    throw new StudioValidationError(
      "dangerouslyAllowBrowser",
      "must be true to create a Studio client in a browser, where the page exposes the token " +
        "to every script it runs; call the API from your server instead",
    );
  }
}
