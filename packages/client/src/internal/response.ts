import {
  StudioApiError,
  type StudioApiErrorDetails,
  StudioAuthError,
  StudioError,
  StudioNotFoundError,
  StudioRateLimitError,
  StudioServerError,
} from "../errors.js";
import { redactSecrets } from "./redact.js";
import { retryAfterMs } from "./retry.js";

// Turning an HTTP answer into data or into an error a program can branch on. Bodies are read as text by
// openapi-fetch (`parseAs: "text"`) and parsed here, so a malformed body is a StudioError, not a SyntaxError.

const REQUEST_ID_HEADERS = ["x-request-id", "request-id", "x-correlation-id"];
// Cookies are credentials too; they are not kept on errors.
const DROPPED_HEADERS = new Set(["set-cookie", "set-cookie2"]);
const MAX_MESSAGE_DETAIL = 200;

/** The error for a non-2xx answer; `body` is what openapi-fetch gave (parsed JSON, or the text). */
export function apiErrorFrom(
  method: string,
  path: string,
  response: Response,
  body: unknown,
  secrets: readonly string[],
): StudioApiError {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!DROPPED_HEADERS.has(name)) headers[name] = value;
  });
  const safeHeaders = redactSecrets(headers, secrets);
  const safeBody = redactSecrets(body, secrets);
  const requestId = REQUEST_ID_HEADERS.map((name) => safeHeaders[name]).find((value) => value !== undefined);
  const details: StudioApiErrorDetails = {
    method,
    path,
    status: response.status,
    body: safeBody,
    headers: safeHeaders,
    requestId,
    retryAfterMs: retryAfterMs(response.headers),
  };
  const statusText = response.statusText ? ` ${response.statusText}` : "";
  const detail = describeBody(safeBody, response.headers.get("content-type"));
  const id = requestId === undefined ? "" : ` [request id ${requestId}]`;
  const message = `${method} ${path} answered ${response.status}${statusText}${detail}${id}`;
  const status = response.status;
  if (status === 401 || status === 403) return new StudioAuthError(message, details);
  if (status === 404) return new StudioNotFoundError(message, details);
  if (status === 429) return new StudioRateLimitError(message, details);
  if (status >= 500) return new StudioServerError(message, details);
  return new StudioApiError(message, details);
}

/** The JSON object of a 2xx answer; anything else (empty, not JSON, not an object) is a StudioError. */
export function parseJsonObject(
  method: string,
  path: string,
  response: Response,
  text: unknown,
  secrets: readonly string[],
): Record<string, unknown> {
  const where = `${method} ${path} answered ${response.status}`;
  const type = response.headers.get("content-type") ?? "no content type";
  if (typeof text !== "string" || text.trim() === "") {
    throw new StudioError(`${where} with an empty body where a JSON object was expected`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // The SyntaxError quotes the body; kept as the cause only when it cannot hold a secret.
    const cause = error instanceof Error && !secrets.some((s) => text.includes(s)) ? error : undefined;
    throw new StudioError(
      `${where} with a body that is not valid JSON (${type}, ${text.length} characters)`,
      {
        cause,
      },
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new StudioError(
      `${where} with JSON that is not an object (${Array.isArray(value) ? "array" : typeof value})`,
    );
  }
  return value as Record<string, unknown>;
}

/** `: <the server's message>` when the body has one, else the body's type and size. */
function describeBody(body: unknown, contentType: string | null): string {
  const message = serverMessage(body);
  if (message !== undefined) {
    const short = message.length > MAX_MESSAGE_DETAIL ? `${message.slice(0, MAX_MESSAGE_DETAIL)}…` : message;
    return `: ${short}`;
  }
  if (typeof body === "string" && body.length > 0) {
    return ` (${contentType ?? "no content type"} body of ${body.length} characters)`;
  }
  return "";
}

/** The message of common error bodies: `{ message }`, `{ error: { message } }`, `{ error }`, `{ detail }`. */
function serverMessage(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const record = body as Record<string, unknown>;
  const nested = record.error;
  if (typeof nested === "object" && nested !== null) {
    const inner = (nested as Record<string, unknown>).message;
    if (typeof inner === "string") return inner;
  }
  for (const value of [record.message, nested, record.detail]) {
    if (typeof value === "string") return value;
  }
  return undefined;
}
