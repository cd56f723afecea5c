import { describeValue, serverRootPath } from "@finetune-studio/internal";
import {
  type ChatCompletion,
  type ChatCompletionRequest,
  type ChatPaths,
  chatCompletionRequestLimits,
  type LoadLoraAdapterRequest,
  type ModelList,
  type UnloadLoraAdapterRequest,
} from "@finetune-studio/types";
import type { Client } from "openapi-fetch";
import { StudioError, StudioValidationError } from "./errors.js";
import { brokenCompletion, brokenModelList } from "./internal/answers.js";
import { createCore } from "./internal/core.js";
import { checkWaitOptions, isTransient, poll } from "./internal/poll.js";
import { assertCredential, checkLimit, checkObject, type Limit, refuse } from "./internal/validate.js";
import type { ClientOptions, RequestOptions } from "./options.js";
import { ChatCompletionStream } from "./stream/chat-completion-stream.js";

// The local chat-completions server (vLLM's OpenAI-compatible API) a fine-tuned model is served with.
// Completions are not retried by default: a generation that reached the server costs GPU time, and the
// request is not idempotent in that sense. Readiness is polled by waitUntilReady instead.

export interface ChatClientOptions extends ClientOptions {
  /**
   * The server's URL, e.g. `http://127.0.0.1:8000`; with `/v1` at the end (as `launch` prints it and the
   * OpenAI SDKs take it) it means the same server.
   */
  baseUrl: string;
  /** Only needed when the server was started with `--api-key` / `VLLM_API_KEY`; sent on `/v1` routes. */
  apiKey?: string;
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

/** Options of `chat.stream`. */
export interface StreamRequestOptions {
  /** Stops the stream at once (also before it starts) and closes the connection. */
  signal?: AbortSignal;
  /** The most milliseconds to wait for the answer's headers, then for each next chunk. Default: the client's. */
  timeoutMs?: number;
}

export interface ChatClient {
  /** `POST /v1/chat/completions`: sends the conversation, returns the completion object. */
  complete(request: ChatCompletionRequest, options?: RequestOptions): Promise<ChatCompletion>;
  /**
   * `POST /v1/chat/completions` with `stream: true`: resolves once the server answers, with the reply as it
   * is generated (iterate the chunks, or `textStream()`, `finalCompletion()`, `toReadableStream()`).
   * Never retried: a generation that started cannot be replayed.
   */
  stream(request: ChatCompletionRequest, options?: StreamRequestOptions): Promise<ChatCompletionStream>;
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
  /**
   * `POST /v1/load_lora_adapter`: loads an adapter while the server runs (it must have been started with
   * `VLLM_ALLOW_RUNTIME_LORA_UPDATING=True`, for trusted networks only). Resolves with the server's sentence.
   */
  loadLoraAdapter(adapter: LoadLoraAdapterRequest, options?: RequestOptions): Promise<string>;
  /** `POST /v1/unload_lora_adapter`: unloads it; requests naming it then answer 404. */
  unloadLoraAdapter(adapter: UnloadLoraAdapterRequest, options?: RequestOptions): Promise<string>;
  /** The underlying openapi-fetch client, typed by the chat-completions contract. */
  readonly raw: Client<ChatPaths>;
}

/** A probe that takes longer than this is a server not ready yet, whatever the client's timeout. */
const MAX_PROBE_MS = 10_000;
// The contract's limits, generated; one it drops is absent there, and then nothing is checked.
const requestLimits: Record<string, Limit> = chatCompletionRequestLimits ?? {};

export function createChatClient(options: ChatClientOptions): ChatClient {
  checkObject("options", options);
  assertCredential("apiKey", options.apiKey, false);
  const { apiKey } = options;
  const core = createCore<ChatPaths>(options, {
    secret: apiKey,
    headers: {},
    timeoutMs: 600_000,
    maxRetries: 0,
    rootPath: serverRootPath,
  });
  // The key goes to the OpenAI-compatible routes only; `/health` needs none.
  const headers = apiKey === undefined ? undefined : { authorization: `Bearer ${apiKey}` };
  const secrets = apiKey === undefined ? [] : [apiKey];

  const complete = async (request: ChatCompletionRequest, callOptions?: RequestOptions) => {
    checkChatRequest(request, false);
    return core.run(
      { method: "POST", path: "/v1/chat/completions", body: request, headers, check: brokenCompletion },
      callOptions,
    );
  };
  const listModels = async (callOptions?: RequestOptions) =>
    core.run({ method: "GET", path: "/v1/models", headers, check: brokenModelList }, callOptions);
  /** The runtime LoRA routes answer a sentence of text on success, vLLM's JSON error otherwise. */
  const loraRoute = async (path: LoraPath, body: LoraRequest, callOptions: RequestOptions | undefined) => {
    checkAdapter(path, body);
    return core.text({ method: "POST", path, body, headers }, callOptions);
  };
  const probeHealth = (callOptions?: RequestOptions) =>
    core.text({ method: "GET", path: "/health" }, callOptions);

  return {
    complete,
    async stream(request, streamOptions) {
      checkChatRequest(request, true);
      const { signal, timeoutMs } = streamOptions ?? {};
      const response = await core.stream(
        { method: "POST", path: "/v1/chat/completions", body: { ...request, stream: true }, headers },
        { signal, timeoutMs, maxRetries: 0 },
      );
      return ChatCompletionStream.fromResponse(response, {
        signal,
        timeoutMs: timeoutMs ?? core.timeoutMs,
        secrets,
      });
    },
    text: async (request, callOptions) => replyText(await complete(request, callOptions)),
    listModels,
    health: async (callOptions) => answers(probeHealth(callOptions)),
    waitUntilReady: (waitOptions) => waitUntilServing(core, probeHealth, listModels, waitOptions),
    loadLoraAdapter: (adapter, callOptions) => loraRoute("/v1/load_lora_adapter", adapter, callOptions),
    unloadLoraAdapter: (adapter, callOptions) => loraRoute("/v1/unload_lora_adapter", adapter, callOptions),
    raw: core.api,
  };
}

type LoraPath = "/v1/load_lora_adapter" | "/v1/unload_lora_adapter";
type LoraRequest = LoadLoraAdapterRequest | UnloadLoraAdapterRequest;

/** The fields vLLM needs of an adapter, as strings. */
function checkAdapter(path: LoraPath, adapter: unknown): void {
  const given = checkObject("adapter", adapter);
  const required = path === "/v1/load_lora_adapter" ? ["lora_name", "lora_path"] : ["lora_name"];
  for (const field of required) {
    if (typeof given[field] !== "string") throw refuse(`adapter.${field}`, "must be a string", given[field]);
  }
}

/** The reply text, `choices[0].message.content`; a StudioError when the completion has none. */
function replyText(completion: ChatCompletion): string {
  const content = completion.choices[0]?.message?.content;
  if (typeof content !== "string") {
    throw new StudioError(
      `the completion has no text at choices[0].message.content (${describeValue(content)}, finish_reason ${describeValue(completion.choices[0]?.finish_reason)})`,
    );
  }
  return content;
}

/** True when the probe answered; false when waiting may help (refused, timed out, 5xx); else its error. */
async function answers(probe: Promise<unknown>): Promise<boolean> {
  try {
    await probe;
    return true;
  } catch (error) {
    if (isTransient(error)) return false;
    throw error;
  }
}

/** Polls `/health`, then `/v1/models` for `model` when given: the steps of `waitUntilReady`. */
async function waitUntilServing(
  server: { readonly baseUrl: string; readonly timeoutMs: number },
  probeHealth: (options: RequestOptions) => Promise<string>,
  listModels: (options: RequestOptions) => Promise<ModelList>,
  waitOptions: WaitUntilReadyOptions | undefined,
): Promise<ModelList> {
  const field = "waitUntilReady options";
  const settings = checkWaitOptions(field, waitOptions, 500);
  const model = waitOptions?.model;
  if (model !== undefined && (typeof model !== "string" || model === "")) {
    throw new StudioValidationError(`${field}.model`, "must be a non-empty string", describeValue(model));
  }
  let notListed: string | undefined;
  const probeTimeoutMs = Math.min(server.timeoutMs, MAX_PROBE_MS);
  return poll(
    {
      ...settings,
      maxIntervalMs: 5_000,
      timeoutMessage: (problem) =>
        `${server.baseUrl} was not ready${model === undefined ? "" : ` to serve "${model}"`} after ${settings.timeoutMs} ms: ${problem ?? notListed ?? "no probe answered yet"}`,
    },
    async (signal) => {
      const probe = { signal, timeoutMs: probeTimeoutMs, maxRetries: 0 };
      await probeHealth(probe);
      const models = await listModels(probe);
      if (model === undefined || models.data.some((entry) => entry.id === model)) return models;
      const names = models.data.map((entry) => JSON.stringify(entry.id)).join(", ");
      notListed = `/v1/models does not list "${model}" (it lists ${names || "nothing"})`;
      return undefined;
    },
  );
}

/** Only what the contract refuses, by its generated limits, for every field given: the server judges the rest. */
function checkChatRequest(request: unknown, streaming: boolean): void {
  const given = checkObject("request", request);
  // Optional fields may be null (the contract makes them nullable); model and messages are required.
  for (const key in requestLimits) {
    if (given[key] != null || key === "model" || key === "messages")
      checkLimit(key, given[key], requestLimits[key]);
  }
  if (typeof given.model !== "string") throw refuse("model", "must be a string", given.model);
  if (!Array.isArray(given.messages)) throw refuse("messages", "must be an array", given.messages);
  given.messages.forEach((message, index) => {
    const role = checkObject(`messages[${index}]`, message).role;
    if (typeof role !== "string" || role === "") {
      throw refuse(
        `messages[${index}].role`,
        "must be a non-empty string (system, user, assistant...)",
        role,
      );
    }
  });
  if (!streaming && given.stream !== undefined && given.stream !== false) {
    // A stream answers server-sent events; complete() reads one JSON completion.
    throw refuse(
      "stream",
      "must be false or absent: complete() reads one JSON completion (use stream() for a stream)",
      given.stream,
    );
  }
}
