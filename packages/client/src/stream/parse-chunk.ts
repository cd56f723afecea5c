import type { ChatCompletionChunk } from "@finetune-studio/types";
import { StudioStreamError, type StudioStreamServerError } from "../errors.js";

// One SSE `data:` payload to one chunk, trusting nothing: the payload may be an error object (vLLM sends
// `data: {"error": {message, type, param, code}}` after a 200, then `data: [DONE]`), not JSON, not a
// chunk, or nested deep enough to overflow the stack of whatever walks it next.

/** Where the stream came from, for messages, and the secrets to scrub from anything the server says. */
export interface StreamSource {
  /** E.g. `POST /v1/chat/completions`. */
  readonly method: string;
  readonly path: string;
  readonly secrets: readonly string[];
}

/** Deeper JSON is refused: real chunks nest about 7 levels, and 512 is safe for any recursive walker. */
export const MAX_JSON_DEPTH = 512;
const MAX_MESSAGE_DETAIL = 500;

export function parseChunk(data: string, source: StreamSource): ChatCompletionChunk {
  // Depth needs two characters a level, so short payloads (nearly every chunk) skip the scan.
  if (data.length > 2 * MAX_JSON_DEPTH && exceedsDepth(data, MAX_JSON_DEPTH)) {
    throw malformed(source, `an event nested more than ${MAX_JSON_DEPTH} levels deep`);
  }
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch (error) {
    // Some engines parse recursively and overflow before the scan's limit would matter; the SyntaxError
    // quotes the payload, so it is not kept.
    const what =
      error instanceof RangeError ? "an event nested too deeply to parse" : "an event that is not JSON";
    throw malformed(source, `${what} (${data.length} characters)`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw malformed(
      source,
      `an event that is not a JSON object (${Array.isArray(value) ? "array" : typeof value})`,
    );
  }
  const record = value as Record<string, unknown>;
  if (record.error !== undefined || record.object === "error") throw serverError(record, source);
  if (!Array.isArray(record.choices)) {
    throw malformed(source, "an event that is not a chat.completion.chunk (no choices array)");
  }
  return value as ChatCompletionChunk;
}

function malformed(source: StreamSource, what: string): StudioStreamError {
  return new StudioStreamError(`${source.method} ${source.path} sent ${what} inside the stream`, {
    method: source.method,
    path: source.path,
  });
}

function serverError(record: Record<string, unknown>, source: StreamSource): StudioStreamError {
  // `{"error": {...}}` (vLLM), `{"error": "text"}`, or an unwrapped `{"object": "error", "message": ...}`.
  const inner = record.error === undefined ? record : record.error;
  const body = typeof inner === "object" && inner !== null ? (inner as Record<string, unknown>) : {};
  const rawMessage = typeof inner === "string" ? inner : body.message;
  const scrub = (text: string) =>
    source.secrets.reduce((out, secret) => out.split(secret).join("[redacted]"), text);
  const text = (value: unknown) => (typeof value === "string" ? scrub(value) : undefined);
  const details: StudioStreamServerError = {
    message: text(rawMessage) ?? "(no message)",
    type: text(body.type),
    code: typeof body.code === "number" ? body.code : text(body.code),
    param: text(body.param),
  };
  const short =
    details.message.length > MAX_MESSAGE_DETAIL
      ? `${details.message.slice(0, MAX_MESSAGE_DETAIL)}…`
      : details.message;
  return new StudioStreamError(`${source.method} ${source.path} sent an error inside the stream: ${short}`, {
    method: source.method,
    path: source.path,
    serverError: details,
  });
}

/** Whether brackets nest deeper than `limit` outside strings; a linear scan that never recurses. */
function exceedsDepth(json: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const code = json.charCodeAt(i);
    if (inString) {
      if (code === 0x5c)
        i++; // backslash: skip the escaped character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      if (++depth > limit) return true;
    } else if (code === 0x5d || code === 0x7d) depth--;
  }
  return false;
}
