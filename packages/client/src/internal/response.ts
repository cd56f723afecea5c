import { readAtMost } from "@finetune-studio/internal";
import {
  StudioApiError,
  StudioAuthError,
  StudioNotFoundError,
  StudioRateLimitError,
  StudioServerError,
} from "../errors.js";
import { redact, redactText } from "./redact.js";
import { retryAfterMs } from "./retry.js";

// What is read of an answer, and the error a non-2xx answer becomes. Everything an error keeps or prints
// (status text, headers, body, a redirect's target) is redacted here, and what a message quotes is cut short.

/** Cookies are credentials too; they are not kept on errors. */
const DROPPED_HEADERS = ["set-cookie", "set-cookie2"];
// Made at first use, not at import: the first TextDecoder costs a cold start a few tenths of a millisecond.
let decoder: TextDecoder | undefined;

/** UTF-8 bytes as text. */
export function decodeText(bytes: Uint8Array): string {
  decoder ??= new TextDecoder();
  return decoder.decode(bytes);
}

/**
 * The whole body as text (UTF-8, "" for none), at most `limit` bytes (after decompression); undefined past
 * it, the rest left unread.
 */
export async function readBody(response: Response, limit: number): Promise<string | undefined> {
  if (response.body === null) return "";
  // HTTP framing bounds a body of declared length (unless compressed): read it whole, the fast way (fetch's
  // own text(): cheaper than an ArrayBuffer copied and decoded here).
  const length = response.headers.get("content-length");
  if (length !== null && Number(length) <= limit && !response.headers.has("content-encoding")) {
    return response.text();
  }
  const bytes = await readAtMost(response.body, limit);
  return bytes && decodeText(bytes);
}

/** The error for a non-2xx (or redirected) answer whose body, if read, is `read`. */
export function apiErrorFrom(
  method: string,
  path: string,
  response: Response,
  read: string | undefined,
  secrets: readonly string[],
): StudioApiError {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!DROPPED_HEADERS.includes(name)) headers[name] = redactText(value, secrets);
  });
  const text = read ? redactText(read, secrets) : "";
  const body = text === "" ? undefined : redact(parseJson(text), secrets);
  const requestId = headers["x-request-id"] ?? headers["request-id"] ?? headers["x-correlation-id"];
  const { status } = response;
  const serverMessage = messageOf(body);
  const details = {
    method,
    path,
    status,
    body,
    serverMessage,
    headers,
    requestId,
    retryAfterMs: retryAfterMs(response.headers),
  };
  const id = requestId === undefined ? "" : ` [request id ${quote(requestId)}]`;
  if (isRedirect(response)) {
    const message = `${method} ${path} was redirected (${status || "opaque"}) to ${target(response, secrets)}; the API has no redirects, so nothing was sent there${id}`;
    return new StudioApiError(message, details);
  }
  const statusText = response.statusText ? ` ${quote(redactText(response.statusText, secrets))}` : "";
  const said =
    serverMessage !== undefined
      ? `: ${quote(serverMessage)}`
      : typeof body === "string"
        ? ` (${quote(headers["content-type"] ?? "no content type")} body of ${body.length} characters)`
        : "";
  const message = `${method} ${path} answered ${status}${statusText}${said}${id}`;
  const Type =
    status === 401 || status === 403
      ? StudioAuthError
      : status === 404
        ? StudioNotFoundError
        : status === 429
          ? StudioRateLimitError
          : status >= 500
            ? StudioServerError
            : StudioApiError;
  return new Type(message, details);
}

/** A 3xx answer, or one a fetch followed (or could not show, in a browser): the API has no redirects. */
export function isRedirect(response: Response): boolean {
  const { status } = response;
  return response.redirected || response.type === "opaqueredirect" || (status >= 300 && status < 400);
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

/** The server's message in its error body: `{ message }`, `{ error: { message } }`, `{ error }` or `{ detail }`. */
function messageOf(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const record = body as Record<string, unknown>;
  const nested = record.error as Record<string, unknown> | undefined;
  return [nested?.message, record.message, nested, record.detail].find(
    (value) => typeof value === "string",
  ) as string | undefined;
}

/** What a message quotes of a server's text is cut short; the whole stays on the error's fields. */
function quote(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
