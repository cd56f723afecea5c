import type { ChatCompletion, ChatCompletionRequest, ChatPaths, ModelList } from "@finetune-studio/types";
import createClient, { type Client } from "openapi-fetch";
import {
  StudioApiError,
  StudioConnectionError,
  StudioError,
  StudioTimeoutError,
  StudioValidationError,
} from "./errors.js";
import { baseUrlString, parseBaseUrl } from "./internal/base-url.js";
import { validateChatRequest } from "./internal/chat-request.js";
import { describeValue } from "./internal/describe.js";
import { execute } from "./internal/execute.js";
import { parseJsonObject } from "./internal/response.js";
import { isRetryableStatus } from "./internal/retry.js";
import { linkSignal, sleep } from "./internal/signals.js";
import { callSettings, checkRequestOptions, globalFetch, type Transport } from "./internal/transport.js";
import { assertCredential, assertFunction, assertTimeout, isPlainObject } from "./internal/validate.js";
import type { FetchFunction, RequestOptions } from "./options.js";

// The local chat-completions server (vLLM's OpenAI-compatible API) a fine-tuned model is served with.
// Completions are not retried by default: a generation that reached the server costs GPU time, and the
// request is not idempotent in that sense. Readiness is polled by waitUntilReady instead.

export interface ChatClientOptions {
  /** The server's root URL, without `/v1`: e.g. `http://127.0.0.1:8000`. */
  baseUrl: string;
  /** Only needed when the server was started with `--api-key` / `VLLM_API_KEY`; sent on `/v1` routes. */
  apiKey?: string;
  /** Per-attempt timeout in milliseconds. Default 600 000 (10 min): long generations are normal. */
  timeoutMs?: number;
  fetch?: FetchFunction;
  /** Allow `http://` to a host other than this machine when an `apiKey` is given. Default false. */
  allowInsecureHttp?: boolean;
}

export interface WaitUntilReadyOptions {
  /** Give up after this many milliseconds with a StudioTimeoutError. Default 600 000 (10 min). */
  timeoutMs?: number;
  /** Stops waiting at once; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Also wait until `/v1/models` lists this name (the served model name or a LoRA adapter's name). */
  model?: string;
  /** Pause between probes in milliseconds, growing gently from here. Default 500. */
  intervalMs?: number;
}

export interface ChatClient {
  /** `POST /v1/chat/completions`: sends the conversation, returns the completion object. */
  complete(request: ChatCompletionRequest, options?: RequestOptions): Promise<ChatCompletion>;
  /** Like `complete`, and returns the reply text, `choices[0].message.content`. */
  text(request: ChatCompletionRequest, options?: RequestOptions): Promise<string>;
  /** `GET /v1/models`: the names the server accepts in `model`. */
  listModels(options?: RequestOptions): Promise<ModelList>;
  /**
   * `GET /health`: true when the engine runs; false while it cannot answer (refused, timed out, 5xx).
   * Rejects when the answer means waiting will not help (404: this is not a vLLM server).
   */
  health(options?: RequestOptions): Promise<boolean>;
  /** Resolves with the model list once `/health` answers and `/v1/models` lists `model` (when given). */
  waitUntilReady(options?: WaitUntilReadyOptions): Promise<ModelList>;
  /** The underlying openapi-fetch client, typed by the chat-completions contract. */
  readonly raw: Client<ChatPaths>;
}

const DEFAULT_TIMEOUT_MS = 600_000;
const DEFAULT_READY_TIMEOUT_MS = 600_000;
const DEFAULT_READY_INTERVAL_MS = 500;
const MAX_READY_INTERVAL_MS = 5_000;
/** A probe that takes longer than this is a server not ready yet, whatever the client's timeout. */
const MAX_PROBE_MS = 10_000;

export function createChatClient(options: ChatClientOptions): ChatClient {
  if (!isPlainObject(options))
    throw new StudioValidationError("options", "must be an object", describeValue(options));
  assertCredential("apiKey", options.apiKey, false);
  assertTimeout("timeoutMs", options.timeoutMs);
  assertFunction("fetch", options.fetch);
  const url = parseBaseUrl(options.baseUrl, {
    field: "baseUrl",
    sendsSecret: options.apiKey !== undefined,
    allowInsecureHttp: options.allowInsecureHttp === true,
  });
  if (/\/v1$/.test(url.pathname)) {
    // The OpenAI SDK wants `<server>/v1`; this client adds `/v1` itself, so that would call `/v1/v1/...`.
    throw new StudioValidationError(
      "baseUrl",
      "must be the server's root URL, without /v1",
      baseUrlString(url),
    );
  }
  const baseUrl = baseUrlString(url);
  const { apiKey } = options;
  const transport: Transport = {
    fetch: options.fetch ?? globalFetch,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRetries: 0,
    secrets: apiKey === undefined ? [] : [apiKey],
    logger: undefined,
    authorization: apiKey === undefined ? undefined : "Bearer [redacted]",
  };
  const raw = createClient<ChatPaths>({ baseUrl, fetch: (request) => transport.fetch(request) });
  const auth = apiKey === undefined ? undefined : { Authorization: `Bearer ${apiKey}` };

  async function complete(request: ChatCompletionRequest, callOptions?: RequestOptions) {
    validateChatRequest(request);
    const settings = callSettings(transport, "POST", "/v1/chat/completions", callOptions);
    const answer = await execute(settings, ({ signal, fetch }) =>
      raw.POST("/v1/chat/completions", { body: request, headers: auth, parseAs: "text", signal, fetch }),
    );
    const completion = parseJsonObject(
      "POST",
      settings.path,
      answer.response,
      answer.data,
      transport.secrets,
    );
    if (!Array.isArray(completion.choices)) {
      throw new StudioError(`POST ${settings.path} answered a completion without a choices array`);
    }
    return completion as unknown as ChatCompletion;
  }

  async function listModels(callOptions?: RequestOptions) {
    const settings = callSettings(transport, "GET", "/v1/models", callOptions);
    const answer = await execute(settings, ({ signal, fetch }) =>
      raw.GET("/v1/models", { headers: auth, parseAs: "text", signal, fetch }),
    );
    const list = parseJsonObject("GET", settings.path, answer.response, answer.data, transport.secrets);
    if (!Array.isArray(list.data)) {
      throw new StudioError(`GET ${settings.path} answered a model list without a data array`);
    }
    return list as unknown as ModelList;
  }

  async function probeHealth(callOptions?: RequestOptions): Promise<void> {
    const settings = callSettings(transport, "GET", "/health", callOptions);
    await execute(settings, ({ signal, fetch }) => raw.GET("/health", { parseAs: "text", signal, fetch }));
  }

  return {
    complete,
    async text(request, callOptions) {
      const completion = await complete(request, callOptions);
      const content = completion.choices[0]?.message?.content;
      if (typeof content !== "string") {
        throw new StudioError(
          `the completion has no text at choices[0].message.content (${describeValue(content)}, finish_reason ${describeValue(completion.choices[0]?.finish_reason)})`,
        );
      }
      return content;
    },
    listModels,
    async health(callOptions) {
      try {
        await probeHealth(callOptions);
        return true;
      } catch (error) {
        if (isTransient(error)) return false;
        throw error;
      }
    },
    async waitUntilReady(waitOptions = {}) {
      const { timeoutMs, signal, model, intervalMs } = checkWaitOptions(waitOptions);
      let lastProblem = "no probe answered yet";
      const deadline = linkSignal(
        signal,
        timeoutMs,
        () =>
          new StudioTimeoutError(
            `${baseUrl} was not ready${model === undefined ? "" : ` to serve "${model}"`} after ${timeoutMs} ms: ${lastProblem}`,
            { timeoutMs },
          ),
      );
      const probe = {
        signal: deadline.signal,
        timeoutMs: Math.min(transport.timeoutMs, MAX_PROBE_MS),
        maxRetries: 0,
      };
      try {
        for (let interval = intervalMs; ; interval = Math.min(interval * 1.5, MAX_READY_INTERVAL_MS)) {
          try {
            await probeHealth(probe);
            const models = await listModels(probe);
            if (model === undefined || models.data.some((entry) => entry.id === model)) return models;
            const names = models.data.map((entry) => JSON.stringify(entry.id)).join(", ");
            lastProblem = `/v1/models does not list "${model}" (it lists ${names || "nothing"})`;
          } catch (error) {
            if (deadline.signal.aborted) throw deadline.signal.reason;
            if (!isTransient(error)) throw error;
            lastProblem = (error as Error).message;
          }
          await sleep(interval, deadline.signal);
        }
      } finally {
        deadline.dispose();
      }
    },
    raw,
  };
}

/** Failures that go away by themselves while a server starts: no answer, a timeout, a 5xx or a retryable 4xx. */
function isTransient(error: unknown): boolean {
  if (error instanceof StudioConnectionError || error instanceof StudioTimeoutError) return true;
  return error instanceof StudioApiError && isRetryableStatus(error.status);
}

function checkWaitOptions(options: unknown): Required<Omit<WaitUntilReadyOptions, "signal" | "model">> & {
  signal: AbortSignal | undefined;
  model: string | undefined;
} {
  const checked = checkRequestOptions(options, "waitUntilReady options") as WaitUntilReadyOptions;
  assertTimeout("waitUntilReady options.intervalMs", checked.intervalMs);
  if (checked.model !== undefined && (typeof checked.model !== "string" || checked.model === "")) {
    throw new StudioValidationError(
      "waitUntilReady options.model",
      "must be a non-empty string",
      describeValue(checked.model),
    );
  }
  return {
    timeoutMs: checked.timeoutMs ?? DEFAULT_READY_TIMEOUT_MS,
    intervalMs: checked.intervalMs ?? DEFAULT_READY_INTERVAL_MS,
    signal: checked.signal,
    model: checked.model,
  };
}
