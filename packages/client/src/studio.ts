import type { ProjectTree, paths, Recommendations, Trace, TraceUpdate } from "@finetune-studio/types";
import createClient, { type Client } from "openapi-fetch";
import {
  StudioError,
  StudioRecommendationsFailedError,
  StudioTimeoutError,
  StudioValidationError,
} from "./errors.js";
import { baseUrlString, parseBaseUrl } from "./internal/base-url.js";
import { describeValue } from "./internal/describe.js";
import { type CallSettings, execute } from "./internal/execute.js";
import { parseJsonObject } from "./internal/response.js";
import { linkSignal, sleep } from "./internal/signals.js";
import { callSettings, checkRequestOptions, globalFetch, type Transport } from "./internal/transport.js";
import {
  assertCredential,
  assertFeedback,
  assertFunction,
  assertRetries,
  assertScore,
  assertTimeout,
  assertUuid,
  isPlainObject,
} from "./internal/validate.js";
import type { StudioLogger } from "./logger.js";
import type { FetchFunction, RequestOptions } from "./options.js";

export interface StudioClientOptions {
  /** Your studio deployment, e.g. `https://studio.example.net`; every API path is relative to it. */
  baseUrl: string;
  /** The access token, sent as `Authorization: Bearer <token>`. Required. */
  token: string;
  /** Retries of a failed attempt (connection error, timeout, 408, 409, 429, 5xx). Default 2. */
  maxRetries?: number;
  /** Per-attempt timeout in milliseconds. Default 60 000. */
  timeoutMs?: number;
  fetch?: FetchFunction;
  /** Extra headers for every request. `Authorization` is always the token's. */
  headers?: Record<string, string>;
  /** Called once per attempt with method, path, status, attempt, duration and a redacted Authorization. */
  logger?: StudioLogger;
  /** Allow `http://` to a host other than this machine, sending the token in clear. Default false. */
  allowInsecureHttp?: boolean;
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
  /** Polls `getRecommendations` while `processing`; resolves on `completed`, rejects on `failed` or timeout. */
  waitForRecommendations(
    snapshotId: string,
    options?: WaitForRecommendationsOptions,
  ): Promise<CompletedRecommendations>;
  /** `PUT /api/v1/traces/{id}`: sets the fields given (score, feedback, projectId); returns the whole trace. */
  updateTrace(traceId: string, update: TraceUpdate, options?: RequestOptions): Promise<Trace>;
  /** The underlying openapi-fetch client (token and headers included), for what the helpers do not cover. */
  readonly raw: Client<paths>;
}

const DEFAULT_MAX_RETRIES = 2;
const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_POLL_INTERVAL_MS = 1_000;
const DEFAULT_POLL_TIMEOUT_MS = 600_000;
/** Each pause is this much longer than the last, up to the cap: gentle on the service during long jobs. */
const POLL_GROWTH = 1.5;
const MAX_POLL_INTERVAL_MS = 10_000;
const TRACE_UPDATE_FIELDS = new Set(["score", "feedback", "projectId"]);

export function createStudioClient(options: StudioClientOptions): StudioClient {
  if (!isPlainObject(options))
    throw new StudioValidationError("options", "must be an object", describeValue(options));
  assertCredential("token", options.token, true);
  assertRetries("maxRetries", options.maxRetries);
  assertTimeout("timeoutMs", options.timeoutMs);
  assertFunction("fetch", options.fetch);
  assertFunction("logger", options.logger);
  if (options.headers !== undefined && !isPlainObject(options.headers)) {
    throw new StudioValidationError(
      "headers",
      "must be an object of header names to values",
      describeValue(options.headers),
    );
  }
  const url = parseBaseUrl(options.baseUrl, {
    field: "baseUrl",
    sendsSecret: true,
    allowInsecureHttp: options.allowInsecureHttp === true,
  });
  const transport: Transport = {
    fetch: options.fetch ?? globalFetch,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    secrets: [options.token],
    logger: options.logger,
    authorization: "Bearer [redacted]",
  };
  const raw = createClient<paths>({
    baseUrl: baseUrlString(url),
    fetch: (request) => transport.fetch(request),
    headers: { ...withoutAuthorization(options.headers), Authorization: `Bearer ${options.token}` },
  });

  /** Runs one operation with retries and returns its JSON object. */
  async function call(settings: CallSettings, send: Parameters<typeof execute>[1]) {
    const answer = await execute(settings, send);
    return parseJsonObject(settings.method, settings.path, answer.response, answer.data, transport.secrets);
  }

  async function getRecommendations(snapshotId: string, callOptions?: RequestOptions) {
    assertUuid("snapshotId", snapshotId);
    const path = `/api/v1/public/recommendations/${snapshotId}`;
    const body = await call(callSettings(transport, "GET", path, callOptions), ({ signal, fetch }) =>
      raw.GET("/api/v1/public/recommendations/{snapshotId}", {
        params: { path: { snapshotId } },
        parseAs: "text",
        signal,
        fetch,
      }),
    );
    if (typeof body.status !== "string") {
      throw new StudioError(`GET ${path} answered an object without a status: not recommendations`);
    }
    return body as unknown as Recommendations;
  }

  return {
    async getProjectTree(projectId, callOptions) {
      assertUuid("projectId", projectId);
      const path = `/api/v1/public/projects/${projectId}`;
      const body = await call(callSettings(transport, "GET", path, callOptions), ({ signal, fetch }) =>
        raw.GET("/api/v1/public/projects/{projectId}", {
          params: { path: { projectId } },
          parseAs: "text",
          signal,
          fetch,
        }),
      );
      if (!isPlainObject(body.project)) {
        throw new StudioError(`GET ${path} answered an object without a project: not a project tree`);
      }
      return body as unknown as ProjectTree;
    },

    getRecommendations,

    async waitForRecommendations(snapshotId, waitOptions = {}) {
      assertUuid("snapshotId", snapshotId);
      const { intervalMs, timeoutMs, signal, onPoll } = checkWaitOptions(waitOptions);
      // One deadline for the whole wait, requests and pauses included; its reason is the timeout error.
      const deadline = linkSignal(
        signal,
        timeoutMs,
        () =>
          new StudioTimeoutError(
            `recommendations for snapshot ${snapshotId} were still processing after ${timeoutMs} ms`,
            { timeoutMs },
          ),
      );
      try {
        for (let poll = 1, interval = intervalMs; ; poll++) {
          const recommendations = await getRecommendations(snapshotId, { signal: deadline.signal });
          onPoll?.(recommendations, poll);
          if (recommendations.status === "completed") return recommendations as CompletedRecommendations;
          if (recommendations.status === "failed")
            throw new StudioRecommendationsFailedError(recommendations);
          // `processing`, or a status this version does not know yet: neither is final, so keep polling.
          await sleep(interval, deadline.signal);
          interval = Math.min(interval * POLL_GROWTH, Math.max(MAX_POLL_INTERVAL_MS, intervalMs));
        }
      } finally {
        deadline.dispose();
      }
    },

    async updateTrace(traceId, update, callOptions) {
      assertUuid("traceId", traceId);
      const body = checkTraceUpdate(update);
      const path = `/api/v1/traces/${traceId}`;
      const trace = await call(callSettings(transport, "PUT", path, callOptions), ({ signal, fetch }) =>
        raw.PUT("/api/v1/traces/{id}", {
          params: { path: { id: traceId } },
          body,
          parseAs: "text",
          signal,
          fetch,
        }),
      );
      return trace as unknown as Trace;
    },

    raw,
  };
}

/** The update as it will be sent: only the fields given, each checked against the contract's rule. */
function checkTraceUpdate(update: unknown): TraceUpdate {
  if (!isPlainObject(update)) {
    throw new StudioValidationError(
      "update",
      "must be an object with score, feedback or projectId",
      describeValue(update),
    );
  }
  for (const key of Object.keys(update)) {
    if (!TRACE_UPDATE_FIELDS.has(key)) {
      // The contract refuses unknown fields, so a misspelt one fails here instead of being ignored.
      throw new StudioValidationError(
        `update.${key}`,
        "is not a field of a trace update (score, feedback, projectId)",
      );
    }
  }
  const body: TraceUpdate = {};
  if (update.score !== undefined) {
    assertScore(update.score);
    body.score = update.score;
  }
  if (update.feedback !== undefined) {
    assertFeedback(update.feedback);
    body.feedback = update.feedback;
  }
  if (update.projectId !== undefined) {
    if (update.projectId !== null) assertUuid("projectId", update.projectId);
    body.projectId = update.projectId;
  }
  return body;
}

function checkWaitOptions(options: unknown) {
  const checked = checkRequestOptions(
    options,
    "waitForRecommendations options",
  ) as WaitForRecommendationsOptions;
  assertTimeout("waitForRecommendations options.intervalMs", checked.intervalMs);
  assertFunction("waitForRecommendations options.onPoll", checked.onPoll);
  return {
    intervalMs: checked.intervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    timeoutMs: checked.timeoutMs ?? DEFAULT_POLL_TIMEOUT_MS,
    signal: checked.signal,
    onPoll: checked.onPoll,
  };
}

/** The caller's headers minus any Authorization: the token's header must be the one sent. */
function withoutAuthorization(headers: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers ?? {}).filter(([name]) => name.toLowerCase() !== "authorization"),
  );
}
