// One event's data to a chunk, on its own: what is refused and how, and what an error event carries.
import { describe, expect, it } from "vitest";
import { StudioStreamError } from "../errors.js";
import { parseChunk } from "./parse-chunk.js";

const where = { method: "POST", path: "/v1/chat/completions" };
const SECRET = "sk-secret-in-an-error";

function refusal(data: string): StudioStreamError {
  try {
    parseChunk(data, where, [SECRET]);
  } catch (error) {
    expect(error).toBeInstanceOf(StudioStreamError);
    return error as StudioStreamError;
  }
  throw new Error(`expected ${data} to be refused`);
}

describe("parseChunk", () => {
  it("returns a chunk as parsed", () => {
    const data = '{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[]}';
    expect(parseChunk(data, where, [])).toEqual(JSON.parse(data));
  });

  it.each([
    ["not JSON", "{oops", "an event that is not JSON (5 characters)"],
    ["an array", "[1]", "an event that is not a JSON object (array)"],
    ["null", "null", "an event that is not a JSON object (null)"],
    ["a number", "42", "an event that is not a JSON object (number)"],
    ["a string", '"x"', "an event that is not a JSON object (string)"],
    [
      "without choices",
      '{"object":"chat.completion.chunk"}',
      "an event that is not a chat.completion.chunk (no choices array)",
    ],
    [
      "choices that are not an array",
      '{"choices":{}}',
      "an event that is not a chat.completion.chunk (no choices array)",
    ],
    ["nested 513 deep", `${"[".repeat(513)}${"]".repeat(513)}`, "an event nested more than 512 levels deep"],
  ])("refuses an event that is %s, naming what it is", (_, data, says) => {
    const error = refusal(data);
    expect(error.message).toBe(`POST /v1/chat/completions sent ${says} inside the stream`);
    expect(error).toMatchObject({ ...where, serverError: undefined });
  });

  it("counts brackets inside strings as text, not nesting", () => {
    const deepText = JSON.stringify({ choices: [], text: "[{".repeat(600) });
    expect(parseChunk(deepText, where, [])).toMatchObject({ choices: [] });
    // 512 levels is the limit itself, not past it.
    expect(() => parseChunk(`${"[".repeat(512)}${"]".repeat(512)}`, where, [])).toThrow(/not a JSON object/);
  });

  it.each([
    [
      "vLLM's error object",
      {
        error: { message: `engine died, key ${SECRET}`, type: "InternalServerError", param: null, code: 500 },
      },
      { message: "engine died, key [redacted]", type: "InternalServerError", code: 500, param: undefined },
    ],
    [
      "an error that is text",
      { error: `no key ${SECRET}` },
      { message: "no key [redacted]", type: undefined, code: undefined, param: undefined },
    ],
    [
      'an unwrapped {"object": "error"}',
      { object: "error", message: "bad", type: "BadRequestError", code: "invalid", param: SECRET },
      { message: "bad", type: "BadRequestError", code: "invalid", param: "[redacted]" },
    ],
    [
      "an error without a message",
      { error: 7 },
      { message: "(no message)", type: undefined, code: undefined, param: undefined },
    ],
  ])("turns %s into the error's serverError, scrubbed", (_, body, serverError) => {
    const error = refusal(JSON.stringify(body));
    expect(error.serverError).toEqual(serverError);
    expect(error.message).toBe(
      `POST /v1/chat/completions sent an error inside the stream: ${serverError.message}`,
    );
    expect(JSON.stringify(error)).not.toContain(SECRET);
  });

  it("quotes at most 500 characters of the server's message, and keeps the whole on serverError", () => {
    const message = "x".repeat(1_000);
    const error = refusal(JSON.stringify({ error: { message } }));
    expect(error.serverError?.message).toBe(message);
    expect(error.message).toBe(
      `POST /v1/chat/completions sent an error inside the stream: ${"x".repeat(500)}…`,
    );
  });
});
