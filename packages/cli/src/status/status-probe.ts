import {
  type ChatClient,
  createChatClient,
  type FetchFunction,
  StudioApiError,
  StudioConnectionError,
  StudioError,
  StudioTimeoutError,
} from "@finetune-studio/client";
import { isThisMachine } from "@finetune-studio/internal";
import {
  type MetricsScrape,
  type SloTarget,
  summarizeVllmMetrics,
  type VllmMetricsSummary,
} from "@finetune-studio/serve-kit";
import { errorText } from "../shared/messages.js";

// One look at a vLLM instance, through the chat client: it bounds each answer's size and time, refuses
// redirects and keeps the key out of its errors; this turns its outcome into what `status` shows.

/** What `status` says of one instance. */
export interface InstanceStatus {
  /** The server's root URL, as given. */
  url: string;
  /**
   * up: /health answered 200. refused: nothing listens (vLLM stopped, or still loading its weights: it only
   * listens once they are loaded). timeout: no answer in time. unhealthy: /health answered another status
   * (503 while the engine is dead). garbage: it answers, but not as vLLM. unreachable: another network failure.
   * mixed: its /metrics reads came from more than one vLLM process (a balancer in front of several instances,
   * or a restart between reads), whose counters cannot be compared: nothing is shown rather than a mix.
   */
  state: "up" | "refused" | "timeout" | "unhealthy" | "garbage" | "unreachable" | "mixed";
  /** Why it is not up, or what could not be read from an instance that is. */
  detail: string | null;
  /** The served model and adapters (an adapter's `parent` is the model it applies to); null when unread. */
  models: { id: string; parent: string | null }[] | null;
  /** The `/metrics` summary; null when the instance is not up. */
  metrics: VllmMetricsSummary | null;
}

export interface ProbeOptions {
  /** Per-request deadline. */
  timeoutMs: number;
  /** Sent on /v1 routes (vLLM's --api-key); only over https or to this machine. */
  apiKey?: string;
  fetch?: FetchFunction;
  /** Ends every read of this probe at once: `status` gives each look at an instance one deadline. */
  signal?: AbortSignal;
  /** SLO targets (`sloTargets`): the summary then holds each one's attainment between the two scrapes. */
  slo?: readonly SloTarget[];
}

const MAX_HEALTH_BYTES = 64 * 1024;
const MAX_MODELS_BYTES = 1024 * 1024;
export const MAX_METRICS_BYTES = 8 * 1024 * 1024;
/** A longer model list is cut here: status shows names, not thousands of them. */
const MAX_MODELS_SHOWN = 1000;

type Probe = { status: InstanceStatus; scrape: MetricsScrape | undefined };
/** Why an instance is not up, or undefined when the read went on. */
type Down = { state: InstanceStatus["state"]; detail: string } | undefined;
/** A client for this instance whose answers are cut at `maxResponseBytes`; the key only where given. */
type ChatWithin = (maxResponseBytes: number, apiKey?: string) => ChatClient;

/** Probes /health and /v1/models and scrapes /metrics once; `earlier` is a previous scrape, for rates. */
export async function probeInstance(
  url: string,
  options: ProbeOptions,
  earlier?: MetricsScrape,
): Promise<Probe> {
  const { timeoutMs } = options;
  const signal = options.signal ?? AbortSignal.timeout(timeoutMs);
  // One client per size cap, as the client's bound is its maxResponseBytes; only /v1/models needs the key.
  const chatWithin: ChatWithin = (maxResponseBytes, apiKey) =>
    createChatClient({
      baseUrl: url,
      apiKey,
      timeoutMs,
      maxRetries: 0,
      maxResponseBytes,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  const status: InstanceStatus = { url, state: "up", detail: null, models: null, metrics: null };
  const unhealthy = await readHealth(chatWithin, signal, timeoutMs);
  if (unhealthy !== undefined) return down(status, unhealthy.state, unhealthy.detail);
  const notes: string[] = [];
  const chat = chatWithin(MAX_MODELS_BYTES, keyToSend(url, options.apiKey, notes));
  const models = await readModels(chat, signal, timeoutMs, notes);
  if (models !== null && !Array.isArray(models)) return down(status, models.state, models.detail);
  status.models = models;
  return readMetrics(status, chatWithin(MAX_METRICS_BYTES), { signal, timeoutMs, notes, earlier, options });
}

/** /health: 200 is up; a redirect or 404 is not vLLM; another status is an engine not serving. */
async function readHealth(chatWithin: ChatWithin, signal: AbortSignal, timeoutMs: number): Promise<Down> {
  try {
    const health = await answered(
      chatWithin(MAX_HEALTH_BYTES).raw.GET("/health", { parseAs: "text", signal }),
    );
    if (health.status === 404 || (health.status >= 300 && health.status < 400)) {
      return { state: "garbage", detail: `/health answered ${health.status}: this is not a vLLM server` };
    }
    if (health.status !== 200) {
      return { state: "unhealthy", detail: `/health answered ${health.status}: the engine is not serving` };
    }
    return undefined;
  } catch (error) {
    return failureOf(error, timeoutMs);
  }
}

/**
 * /v1/models: the models shown, or (when it could not be read, an error status or a failure) null and a
 * note; an answer that is not a model list makes the instance not vLLM's.
 */
async function readModels(
  chat: ChatClient,
  signal: AbortSignal,
  timeoutMs: number,
  notes: string[],
): Promise<{ id: string; parent: string | null }[] | null | NonNullable<Down>> {
  const notAList = { state: "garbage", detail: "/v1/models did not answer a model list" } as const;
  try {
    return modelsShown(await chat.listModels({ signal })) ?? notAList;
  } catch (error) {
    if (error instanceof StudioApiError) {
      const auth = error.status === 401 || error.status === 403;
      notes.push(
        `/v1/models answered ${error.status}${auth ? ": give the server's key with --api-key-env NAME" : ""}`,
      );
      return null;
    }
    const failure = failureOf(error, timeoutMs);
    if (failure.state === "garbage") return notAList;
    notes.push(`/v1/models: ${failure.detail}`);
    return null;
  }
}

/** /metrics read twice in a row (a balancer answers the second from another process), then summarized. */
async function readMetrics(
  status: InstanceStatus,
  metricsChat: ChatClient,
  read: {
    signal: AbortSignal;
    timeoutMs: number;
    notes: string[];
    earlier: MetricsScrape | undefined;
    options: ProbeOptions;
  },
): Promise<Probe> {
  const { signal, timeoutMs, notes } = read;
  const first = await scrapeMetrics(metricsChat, signal, timeoutMs);
  if (typeof first === "string") {
    notes.push(first);
    return { status: { ...status, detail: notes.join("; ") }, scrape: undefined };
  }
  const again = await scrapeMetrics(metricsChat, signal, timeoutMs);
  const scraped = typeof again === "string" ? first : again;
  const mixed = mixedProcesses([read.earlier, first, scraped]);
  if (mixed !== undefined) return down(status, "mixed", mixed);
  const metrics = summarizeVllmMetrics(scraped, read.earlier, {
    maxChars: MAX_METRICS_BYTES,
    ...(read.options.slo === undefined ? {} : { slo: read.options.slo }),
  });
  if (!metrics.readable) return down(status, "garbage", `/metrics is not vLLM's: ${metrics.reason}`);
  return {
    status: { ...status, metrics, detail: notes.length === 0 ? null : notes.join("; ") },
    scrape: scraped,
  };
}

/**
 * Which process answered a /metrics read: vLLM serves prometheus_client's default registry, whose process
 * collector exports `process_start_time_seconds` (seconds since the epoch) beside the vllm: series.
 */
function processStart(scrape: MetricsScrape): number | undefined {
  const match = /^process_start_time_seconds ([0-9.eE+]+)\s*$/m.exec(scrape.text);
  const seconds = match === null ? Number.NaN : Number(match[1]);
  return Number.isFinite(seconds) ? seconds : undefined;
}

/**
 * Why these reads of one URL cannot be compared (they came from processes started at different times), or
 * undefined when they can: a server without the start time is taken as one process, as before.
 */
function mixedProcesses(scrapes: readonly (MetricsScrape | undefined)[]): string | undefined {
  const starts = new Set<number>();
  for (const scrape of scrapes) {
    const start = scrape === undefined ? undefined : processStart(scrape);
    if (start !== undefined) starts.add(start);
  }
  if (starts.size < 2) return undefined;
  const times = [...starts].map((start) => new Date(start * 1000).toISOString()).join(" and ");
  return (
    `/metrics answered from ${starts.size} processes (started ${times}): a balancer in front of several ` +
    "instances, or a restart between reads; their counters cannot be mixed. Name each instance's own URL, " +
    "or use --launch P for a studio-serve launch on this machine"
  );
}

/** One read of /metrics (vLLM's Prometheus text), timed, or why it failed. */
export async function scrapeMetrics(
  chat: ChatClient,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<MetricsScrape | string> {
  try {
    const answer = await answered(chat.raw.GET("/metrics", { parseAs: "text", signal }));
    if (answer.status !== 200) return `/metrics answered ${answer.status}`;
    return { text: answer.data ?? "", timeMs: performance.now() };
  } catch (error) {
    return `/metrics: ${failureOf(error, timeoutMs).detail}`;
  }
}

/**
 * The status and body of a raw GET: openapi-fetch hands back an error status with the response, the
 * client throws a redirect it refused as a StudioApiError; both are an answer here.
 */
async function answered<T>(
  pending: Promise<{ data?: T; response: Response }>,
): Promise<{ status: number; data: T | undefined }> {
  try {
    const { data, response } = await pending;
    return { status: response.status, data };
  } catch (error) {
    if (error instanceof StudioApiError) return { status: error.status, data: undefined };
    throw error;
  }
}

/**
 * What a read that got no usable answer means: no answer in time, nothing listening, another network
 * failure, or an answer that is not vLLM's (the client's own verdict: too large, or not the promised shape).
 */
function failureOf(error: unknown, timeoutMs: number): { state: InstanceStatus["state"]; detail: string } {
  const name = error instanceof Error ? error.name : "";
  const code = causeCode(error);
  // The look's deadline aborts with its TimeoutError; the client's own per-request one is a StudioTimeoutError.
  if (
    error instanceof StudioTimeoutError ||
    name === "TimeoutError" ||
    name === "AbortError" ||
    code === "UND_ERR_HEADERS_TIMEOUT" ||
    code === "UND_ERR_BODY_TIMEOUT"
  ) {
    return { state: "timeout", detail: `no answer within ${timeoutMs / 1000} s` };
  }
  if (code === "ECONNREFUSED") {
    return {
      state: "refused",
      detail: "refusing connections: vLLM is stopped, or still loading its weights",
    };
  }
  if (error instanceof StudioError && !(error instanceof StudioConnectionError)) {
    return { state: "garbage", detail: error.message };
  }
  const cause = (error as { cause?: unknown } | null)?.cause;
  const detail = code ?? errorText(cause instanceof Error ? cause : error);
  return { state: "unreachable", detail: `could not read it (${detail})` };
}

/** The first `code` along an error's cause chain (undici puts ECONNREFUSED and its kin there). */
function causeCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function down(status: InstanceStatus, state: InstanceStatus["state"], detail: string) {
  return { status: { ...status, state, detail, metrics: null }, scrape: undefined };
}

/** The key goes only where it cannot be read on the way: https, or this machine. */
function keyToSend(url: string, apiKey: string | undefined, notes: string[]): string | undefined {
  if (apiKey === undefined) return undefined;
  const { protocol, hostname } = new URL(url);
  if (protocol === "https:" || isThisMachine(hostname)) return apiKey;
  notes.push("the API key was not sent: plain http to another machine would expose it");
  return undefined;
}

/** vLLM's model list, reduced to what status shows; undefined when an entry has no string id. */
function modelsShown(list: { data: { id?: unknown; parent?: unknown }[] }) {
  const models: { id: string; parent: string | null }[] = [];
  for (const { id, parent } of list.data.slice(0, MAX_MODELS_SHOWN)) {
    if (typeof id !== "string") return undefined;
    models.push({ id, parent: typeof parent === "string" ? parent : null });
  }
  return models;
}

/**
 * One read of an instance's `/metrics` as `status` reads it (the chat client bounds its size and time and
 * refuses redirects): the page, or why it could not be read. The autoscaler reads its instances by it.
 */
export function readMetricsPage(
  url: string,
  timeoutMs: number,
  maxResponseBytes: number,
  signal: AbortSignal,
): Promise<MetricsScrape | string> {
  const chat = createChatClient({ baseUrl: url, timeoutMs, maxRetries: 0, maxResponseBytes });
  return scrapeMetrics(chat, signal, timeoutMs);
}
