import {
  StudioApiError,
  StudioAuthError,
  StudioError,
  StudioNotFoundError,
  StudioRateLimitError,
  StudioServerError,
} from "../errors.js";
import { redact, redactText } from "./redact.js";
import { retryAfterMs } from "./retry.js";

// What is read of an answer, and the error a non-2xx answer becomes. Everything an error keeps or prints
// (status text, headers, body, a redirect's target) is redacted here, and what a message quotes is cut short.

const REQUEST_ID_HEADERS = ["x-request-id", "request-id", "x-correlation-id"];
// Cookies are credentials too; they are not kept on errors.
const DROPPED_HEADERS = new Set(["set-cookie", "set-cookie2"]);
/** How much of a server's message, status text or request id a message quotes. */
const QUOTED = 200;
const decoder = new TextDecoder();

/** Thrown when a body passes `maxResponseBytes`; a larger answer is not a network fault, so it is not retried. */
export class BodyTooLargeError extends StudioError {}

/** The whole body, at most `limit` bytes (after decompression); past it, the stream is cancelled. */
export async function readBody(
  response: Response,
  limit: number,
  where: string,
): Promise<Uint8Array<ArrayBuffer> | null> {
  if (response.body === null) return null;
  const reader = response.body.getReader();
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  let total = 0;
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    total += chunk.value.byteLength;
    if (total > limit) {
      reader.cancel().catch(() => undefined);
      throw new BodyTooLargeError(
        `${where} answered ${response.status} with a body over maxResponseBytes (${limit} bytes); reading stopped there`,
      );
    }
    chunks.push(chunk.value);
  }
  if (chunks.length === 1) return chunks[0] as Uint8Array<ArrayBuffer>;
  const bytes = new Uint8Array(new ArrayBuffer(total));
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** The error for a non-2xx (or redirected) answer whose body, if read, is `bytes`. */
export function apiErrorFrom(
  method: string,
  path: string,
  response: Response,
  bytes: Uint8Array | null | undefined,
  secrets: readonly string[],
): StudioApiError {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!DROPPED_HEADERS.has(name)) headers[name] = redactText(value, secrets);
  });
  const text = bytes ? redactText(decoder.decode(bytes), secrets) : "";
  const body = text === "" ? undefined : redact(parseJson(text), secrets);
  const requestId = REQUEST_ID_HEADERS.map((name) => headers[name]).find((value) => value !== undefined);
  const { status } = response;
  const details = {
    method,
    path,
    status,
    body,
    headers,
    requestId,
    retryAfterMs: retryAfterMs(response.headers),
  };
  const id = requestId === undefined ? "" : ` [request id ${quote(requestId)}]`;
  if (response.redirected || response.type === "opaqueredirect" || (status >= 300 && status < 400)) {
    const message = `${method} ${path} was redirected (${status || "opaque"}) to ${target(response, secrets)}; the API has no redirects, so nothing was sent there${id}`;
    return new StudioApiError(message, details);
  }
  const statusText = response.statusText ? ` ${quote(redactText(response.statusText, secrets))}` : "";
  const message = `${method} ${path} answered ${status}${statusText}${describeBody(body, headers["content-type"])}${id}`;
  if (status === 401 || status === 403) return new StudioAuthError(message, details);
  if (status === 404) return new StudioNotFoundError(message, details);
  if (status === 429) return new StudioRateLimitError(message, details);
  if (status >= 500) return new StudioServerError(message, details);
  return new StudioApiError(message, details);
}

/** Where a redirect pointed, without its query or fragment (they may carry anything). */
function target(response: Response, secrets: readonly string[]): string {
  const location = response.redirected ? response.url : response.headers.get("location");
  if (!location) return "a location it did not show";
  try {
    const url = new URL(location, response.url || undefined);
    return quote(redactText(`${url.origin}${url.pathname}`, secrets));
  } catch {
    return "a location that is not a URL";
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `: <the server's message>` when the body has one, else the body's type and size. */
function describeBody(body: unknown, contentType: string | undefined): string {
  const message = serverMessage(body);
  if (message !== undefined) return `: ${quote(message)}`;
  if (typeof body === "string")
    return ` (${quote(contentType ?? "no content type")} body of ${body.length} characters)`;
  return "";
}

/** The message of common error bodies: `{ message }`, `{ error: { message } }`, `{ error }`, `{ detail }`. */
function serverMessage(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const record = body as Record<string, unknown>;
  const nested = record.error as Record<string, unknown> | undefined;
  for (const value of [nested?.message, record.message, nested, record.detail]) {
    if (typeof value === "string") return value;
  }
  return undefined;
}

function quote(text: string): string {
  return text.length > QUOTED ? `${text.slice(0, QUOTED)}…` : text;
}
