import type { ChatCompletionChunk } from "@finetune-studio/types";
import { StudioStreamError, type StudioStreamServerError } from "../errors.js";
import { redactText } from "../internal/redact.js";
import { isPlainObject } from "../internal/validate.js";

// One event's data to a chunk, trusting nothing the server sends: it may be an error event, not JSON, not an
// object, or nested deep enough to break a recursive walker downstream.

/** The request, for messages: exactly the fields the errors carry. */
export type Where = Pick<StudioStreamError, "method" | "path">;

/** Deeper JSON is refused: real chunks nest about 7 levels, and 512 is safe for any recursive walker. */
const MAX_JSON_DEPTH = 512;

/** What a message quotes of the server's own error text; the whole stays on `serverError`. */
const MAX_QUOTED_SERVER_MESSAGE = 500;

/** A StudioStreamError for what the server sent; with the server's own error event, its message (capped). */
export function sent(where: Where, what: string, serverError?: StudioStreamServerError): StudioStreamError {
  const said = serverError?.message ?? "";
  const quoted =
    said.length > MAX_QUOTED_SERVER_MESSAGE ? `${said.slice(0, MAX_QUOTED_SERVER_MESSAGE)}…` : said;
  const detail = serverError ? `: ${quoted}` : "";
  return new StudioStreamError(`${where.method} ${where.path} sent ${what} inside the stream${detail}`, {
    ...where,
    serverError,
  });
}

export function parseChunk(data: string, where: Where, secrets: readonly string[]): ChatCompletionChunk {
  // Depth needs two characters a level, so short payloads (nearly every chunk) skip the scan. Within the
  // limit no engine's parser runs out of stack.
  if (data.length > 2 * MAX_JSON_DEPTH && tooDeep(data)) {
    throw sent(where, `an event nested more than ${MAX_JSON_DEPTH} levels deep`);
  }
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    // The SyntaxError quotes the payload, which may hold anything: its length only.
    throw sent(where, `an event that is not JSON (${data.length} characters)`);
  }
  if (!isPlainObject(value)) {
    const kind = Array.isArray(value) ? "array" : value === null ? "null" : typeof value;
    throw sent(where, `an event that is not a JSON object (${kind})`);
  }
  if (value.error !== undefined || value.object === "error") {
    // vLLM sends `{"error": {message, type, param, code}}` after a 200; also `{"error": "text"}`, or an
    // unwrapped `{"object": "error", "message": ...}`.
    const inner = value.error ?? value;
    const body = isPlainObject(inner) ? inner : { message: inner };
    const scrub = (text: unknown) => (typeof text === "string" ? redactText(text, secrets) : undefined);
    throw sent(where, "an error", {
      message: scrub(body.message) ?? "(no message)",
      type: scrub(body.type),
      code: typeof body.code === "number" ? body.code : scrub(body.code),
      param: scrub(body.param),
    });
  }
  if (!Array.isArray(value.choices)) {
    throw sent(where, "an event that is not a chat.completion.chunk (no choices array)");
  }
  return value as unknown as ChatCompletionChunk;
}

/** Whether brackets nest deeper than MAX_JSON_DEPTH outside strings; a linear scan that never recurses. */
function tooDeep(json: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const code = json.charCodeAt(i);
    if (code === 0x5c)
      i++; // a backslash (valid only in a string) escapes the next character
    else if (code === 0x22) inString = !inString;
    else if (inString) continue;
    else if ((code === 0x5b || code === 0x7b) && ++depth > MAX_JSON_DEPTH) return true;
    else if (code === 0x5d || code === 0x7d) depth--;
  }
  return false;
}
