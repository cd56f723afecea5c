import { isLoopbackHost, readAtMost } from "@finetune-studio/internal";
import type { PlanModel } from "@finetune-studio/serve-kit";
import { safetensorsHeaderBytes, safetensorsLmHeadBytes } from "@finetune-studio/serve-kit/internal";
import { headerLength, MAX_HEADER_BYTES } from "./safetensors-header.js";

// Reads a hub repository's config.json and safetensors index over HTTPS, as the hub serves them at
// `${HF_ENDPOINT}/<repo>/resolve/<revision>/<file>`. The token goes only to the endpoint's own origin: large
// files redirect to a CDN, which is followed without it. Every read is bounded in size and time.

const MAX_JSON_BYTES = 32 * 1024 * 1024;
const MAX_REDIRECTS = 5;
const REPO = /^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/;
const REVISION = /^[A-Za-z0-9][A-Za-z0-9._/-]*$/;

/** The hub could not give the files: the message says why and what to do. Never holds the token. */
export class HubError extends Error {
  override readonly name = "HubError";
}

export interface HubOptions {
  env: NodeJS.ProcessEnv;
  token: string | undefined;
  revision?: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** True when the argument names a hub repository (owner/name) rather than a path. */
export function looksLikeHubRepo(text: string): boolean {
  return REPO.test(text) && !text.includes("..");
}

/** The hub endpoint: HF_ENDPOINT or https://huggingface.co; plain http only on a loopback address. */
export function hubEndpoint(env: NodeJS.ProcessEnv): URL {
  const raw = env.HF_ENDPOINT ?? "https://huggingface.co";
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new HubError(
      `HF_ENDPOINT: must be a URL such as https://huggingface.co (given ${JSON.stringify(raw)})`,
    );
  }
  if (!httpsOrLoopback(url)) {
    throw new HubError(`HF_ENDPOINT: must use https (http only on a loopback address) (given ${url.origin})`);
  }
  if (url.username || url.password) throw new HubError("HF_ENDPOINT: must not hold a user name or password");
  return url;
}

/** Where the hub may be reached: https, or plain http to this machine (a mirror or a test stand-in). */
function httpsOrLoopback(url: URL): boolean {
  return url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname));
}

/** The revision, checked to be a branch, tag or commit name (it becomes part of a URL and a cache path). */
export function checkRevision(revision = "main"): string {
  if (!REVISION.test(revision) || revision.includes(".."))
    throw new HubError(`--revision: not a branch, tag or commit (given ${JSON.stringify(revision)})`);
  return revision;
}

export async function readHubModel(repo: string, options: HubOptions): Promise<PlanModel> {
  if (!looksLikeHubRepo(repo)) throw new HubError(`${repo}: not a hub repository name (owner/name)`);
  const revision = checkRevision(options.revision);
  const endpoint = hubEndpoint(options.env);
  const base = `${endpoint.origin}${endpoint.pathname.replace(/\/$/, "")}/${repo}/resolve/${encodeURIComponent(revision).replace(/%2F/g, "/")}/`;
  const get = (file: string, range?: [number, number]) =>
    hubGet(new URL(file, base), endpoint.origin, options, range);
  const config = await get("config.json");
  if (config.status === 404)
    throw new HubError(`${repo}@${revision}: has no config.json (is the name right?)`);
  const index = await get("model.safetensors.index.json");
  if (index.status !== 404)
    return {
      config: parseJson(config.body, "config.json"),
      safetensorsIndex: parseJson(index.body, "model.safetensors.index.json"),
    };
  // One file and no index: the size is in the file's header (two ranged reads, not the weights).
  const first = await get("model.safetensors", [0, 7]);
  if (first.status === 404)
    throw new HubError(`${repo}@${revision}: has neither model.safetensors.index.json nor model.safetensors`);
  const length = headerLength(first.body.subarray(0, 8), "model.safetensors");
  const header = await get("model.safetensors", [8, 8 + length - 1]);
  const parsed = parseJson(header.body, "model.safetensors header");
  return {
    config: parseJson(config.body, "config.json"),
    weightsBytes: safetensorsHeaderBytes(parsed, "model.safetensors header"),
    lmHeadBytes: safetensorsLmHeadBytes(parsed, "model.safetensors header"),
  };
}

/** One file from the hub: redirects followed (the token to the hub's origin only), a refusal as a HubError. */
async function hubGet(
  start: URL,
  origin: string,
  options: HubOptions,
  range: [number, number] | undefined,
): Promise<{ status: number; body: Uint8Array }> {
  const timeoutMs = options.timeoutMs ?? 20_000;
  const signal = AbortSignal.timeout(timeoutMs);
  const file = start.pathname.split("/").pop() ?? "";
  let url = start;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const headers: Record<string, string> = { accept: "*/*" };
    if (range) headers.range = `bytes=${range[0]}-${range[1]}`;
    // The token goes to the hub's own origin only, never to a CDN a redirect points at.
    if (options.token && url.origin === origin) headers.authorization = `Bearer ${options.token}`;
    let response: Response;
    try {
      response = await (options.fetch ?? fetch)(url, { redirect: "manual", signal, headers });
    } catch (error) {
      throw unreachable(error, file, timeoutMs);
    }
    if (response.status >= 300 && response.status < 400) {
      url = await redirectTarget(response, url, file);
      continue;
    }
    if (response.status === 404) {
      await response.body?.cancel();
      return { status: 404, body: new Uint8Array() };
    }
    const refused = refusal(response.status, file, Boolean(options.token));
    if (refused) {
      await response.body?.cancel();
      throw refused;
    }
    return { status: response.status, body: await boundedBody(response, file, range, timeoutMs) };
  }
  throw new HubError(`${file}: more than ${MAX_REDIRECTS} redirects`);
}

/** Where a redirect points: https (or loopback http) only. */
async function redirectTarget(response: Response, from: URL, file: string): Promise<URL> {
  await response.body?.cancel();
  const location = response.headers.get("location");
  if (!location) throw new HubError(`${file}: the hub answered ${response.status} without a Location`);
  const next = new URL(location, from);
  if (!httpsOrLoopback(next)) {
    throw new HubError(`${file}: the hub redirected to a non-https address (${next.origin})`);
  }
  return next;
}

/** The hub's refusals, each with what to do; undefined for an answer to read. */
function refusal(status: number, file: string, withToken: boolean): HubError | undefined {
  if (status === 401 || status === 403)
    return new HubError(
      withToken
        ? `${file}: the hub refused the token (${status}): it has no access to this repository; if it is gated, accept its terms on the model's page`
        : `${file}: the repository is gated or private (${status}): a token is needed; set HF_TOKEN or run \`huggingface-cli login\`, and accept the model's terms on its page`,
    );
  if (status === 429)
    return new HubError(`${file}: the hub is limiting requests (429); wait and try again, or set HF_TOKEN`);
  if (status >= 400) return new HubError(`${file}: the hub answered ${status}`);
  return undefined;
}

/** The answer's body, read up to its cap: a ranged read's length, else MAX_JSON_BYTES. */
async function boundedBody(
  response: Response,
  file: string,
  range: [number, number] | undefined,
  timeoutMs: number,
): Promise<Uint8Array> {
  // A hub that ignores the range answers the whole file: the cap stops the read there.
  const cap = range ? Math.min(range[1] - range[0] + 1, MAX_HEADER_BYTES) : MAX_JSON_BYTES;
  let body: Uint8Array | undefined;
  try {
    body = response.body === null ? new Uint8Array() : await readAtMost(response.body, cap);
  } catch (error) {
    throw unreachable(error, file, timeoutMs);
  }
  if (body === undefined) throw new HubError(`${file}: the answer is larger than ${cap} bytes`);
  return body;
}

function unreachable(error: unknown, file: string, timeoutMs: number): HubError {
  const name = error instanceof Error ? error.name : "";
  if (name === "TimeoutError" || name === "AbortError")
    return new HubError(`${file}: the hub gave no answer within ${timeoutMs / 1000} s`);
  const cause = (error as { cause?: { code?: string; message?: string } } | null)?.cause;
  return new HubError(`${file}: could not reach the hub (${cause?.code ?? cause?.message ?? String(error)})`);
}

function parseJson(body: Uint8Array, what: string): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw new HubError(`${what}: the hub's answer is not JSON`);
  }
}
