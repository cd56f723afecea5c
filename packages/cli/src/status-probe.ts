import {
  type MetricsScrape,
  summarizeVllmMetrics,
  type VllmMetricsSummary,
} from "@finetune-studio/serve-kit";
import { boundedGet, ReadProblem } from "./bounded-read.js";

/** What `status` says of one instance. */
export interface InstanceStatus {
  /** The server's root URL, as given. */
  url: string;
  /**
   * up: /health answered 200. refused: nothing listens (vLLM stopped, or still loading its weights: it only
   * listens once they are loaded). timeout: no answer in time. unhealthy: /health answered another status
   * (503 while the engine is dead). garbage: it answers, but not as vLLM. unreachable: another network failure.
   */
  state: "up" | "refused" | "timeout" | "unhealthy" | "garbage" | "unreachable";
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
  fetch?: typeof fetch;
  /** Ends every read of this probe at once: `status` gives each look at an instance one deadline. */
  signal?: AbortSignal;
}

const MAX_HEALTH_BYTES = 64 * 1024;
const MAX_MODELS_BYTES = 1024 * 1024;
export const MAX_METRICS_BYTES = 8 * 1024 * 1024;

/** Probes /health and /v1/models and scrapes /metrics once; `earlier` is a previous scrape, for rates. */
export async function probeInstance(
  url: string,
  options: ProbeOptions,
  earlier?: MetricsScrape,
): Promise<{ status: InstanceStatus; scrape: MetricsScrape | undefined }> {
  const read = (path: string, maxBytes: number, headers?: Record<string, string>) =>
    boundedGet(`${url}${path}`, {
      timeoutMs: options.timeoutMs,
      maxBytes,
      ...(headers ? { headers } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  const status: InstanceStatus = { url, state: "up", detail: null, models: null, metrics: null };
  try {
    const health = await read("/health", MAX_HEALTH_BYTES);
    if (health.status === 404 || (health.status >= 300 && health.status < 400)) {
      return down(status, "garbage", `/health answered ${health.status}: this is not a vLLM server`);
    }
    if (health.status !== 200) {
      return down(status, "unhealthy", `/health answered ${health.status}: the engine is not serving`);
    }
  } catch (error) {
    return down(status, stateOf(error), describeProblem(error));
  }

  const notes: string[] = [];
  const headers = keyHeaders(url, options.apiKey, notes);
  try {
    const answer = await read("/v1/models", MAX_MODELS_BYTES, headers);
    if (answer.status === 401 || answer.status === 403) {
      notes.push(`/v1/models answered ${answer.status}: give the server's key with --api-key-env NAME`);
    } else if (answer.status !== 200) {
      notes.push(`/v1/models answered ${answer.status}`);
    } else {
      const models = parseModels(answer.text);
      if (models === undefined) return down(status, "garbage", "/v1/models did not answer a model list");
      status.models = models;
    }
  } catch (error) {
    notes.push(`/v1/models: ${describeProblem(error)}`);
  }

  const scraped = await scrapeMetrics(url, options);
  if (typeof scraped === "string") {
    notes.push(scraped);
    status.detail = notes.join("; ");
    return { status, scrape: undefined };
  }
  status.metrics = summarizeVllmMetrics(scraped, earlier, { maxChars: MAX_METRICS_BYTES });
  if (!status.metrics.readable) {
    return down(status, "garbage", `/metrics is not vLLM's: ${status.metrics.reason}`);
  }
  status.detail = notes.length === 0 ? null : notes.join("; ");
  return { status, scrape: scraped };
}

/** One read of /metrics, timed, or why it failed. */
export async function scrapeMetrics(url: string, options: ProbeOptions): Promise<MetricsScrape | string> {
  try {
    const answer = await boundedGet(`${url}/metrics`, {
      timeoutMs: options.timeoutMs,
      maxBytes: MAX_METRICS_BYTES,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (answer.status !== 200) return `/metrics answered ${answer.status}`;
    return { text: answer.text, timeMs: performance.now() };
  } catch (error) {
    return `/metrics: ${describeProblem(error)}`;
  }
}

function down(status: InstanceStatus, state: InstanceStatus["state"], detail: string) {
  return { status: { ...status, state, detail, metrics: null }, scrape: undefined };
}

function stateOf(error: unknown): InstanceStatus["state"] {
  if (!(error instanceof ReadProblem)) return "unreachable";
  if (error.kind === "refused") return "refused";
  if (error.kind === "timeout") return "timeout";
  if (error.kind === "too-large") return "garbage";
  return "unreachable";
}

function describeProblem(error: unknown): string {
  if (error instanceof ReadProblem && error.kind === "refused") {
    return "refusing connections: vLLM is stopped, or still loading its weights";
  }
  return error instanceof Error ? error.message : String(error);
}

/** The key goes only where it cannot be read on the way: https, or this machine. */
function keyHeaders(url: string, apiKey: string | undefined, notes: string[]) {
  if (apiKey === undefined) return undefined;
  const { protocol, hostname } = new URL(url);
  const local = hostname === "localhost" || hostname === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(hostname);
  if (protocol === "https:" || local) return { Authorization: `Bearer ${apiKey}` };
  notes.push("the API key was not sent: plain http to another machine would expose it");
  return undefined;
}

/** vLLM's model list, reduced to what status shows; undefined when it is not one. */
function parseModels(text: string): { id: string; parent: string | null }[] | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return undefined;
  const models: { id: string; parent: string | null }[] = [];
  for (const entry of data.slice(0, 1000)) {
    const { id, parent } = (entry ?? {}) as { id?: unknown; parent?: unknown };
    if (typeof id !== "string") return undefined;
    models.push({ id, parent: typeof parent === "string" ? parent : null });
  }
  return models;
}
