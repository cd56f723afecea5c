import { describe, expect, it } from "vitest";
import { codePointLength, describeSecret, describeValue } from "./describe.js";

describe("describeValue", () => {
  it.each<[string, { given: unknown; want: string }]>([
    ["null", { given: null, want: "null" }],
    ["undefined", { given: undefined, want: "nothing" }],
    ["an empty string", { given: "", want: "an empty string" }],
    ["a short string, quoted", { given: "http", want: '"http"' }],
    ["quotes and backslashes, escaped", { given: 'a"b\\c', want: '"a\\"b\\\\c"' }],
    ["60 code points, shown", { given: "😀".repeat(60), want: JSON.stringify("😀".repeat(60)) }],
    ["61 code points, by length only", { given: "😀".repeat(61), want: "a string of 61 code points" }],
    ["2049 code points", { given: "a".repeat(2049), want: "a string of 2049 code points" }],
    ["an integer", { given: 70000, want: "70000" }],
    ["a fraction", { given: 1.5, want: "1.5" }],
    ["zero", { given: 0, want: "0" }],
    ["NaN", { given: Number.NaN, want: "NaN" }],
    ["a boolean", { given: false, want: "false" }],
    ["a bigint", { given: 12n, want: "12n" }],
    ["an empty array", { given: [], want: "an array of 0 items" }],
    ["an array of one", { given: ["x"], want: "an array of 1 item" }],
    ["an array of three", { given: [1, 2, 3], want: "an array of 3 items" }],
    ["an object", { given: { token: "secret" }, want: "an object" }],
    ["a function", { given: () => "secret", want: "a function" }],
    ["a symbol", { given: Symbol("secret"), want: "a symbol" }],
  ])("describes %s", (_name, { given, want }) => {
    expect(describeValue(given)).toBe(want);
  });

  it.each<[string, { given: string; want: string }]>([
    ["an escape sequence", { given: "\u001b]0;pwned\u0007", want: '"\\u001b]0;pwned\\u0007"' }],
    ["a newline", { given: "a\nb", want: '"a\\nb"' }],
    ["DEL", { given: "a\u007fb", want: '"a\\u007fb"' }],
    ["a C1 next-line", { given: "a\u0085b", want: '"a\\u0085b"' }],
    ["a right-to-left override", { given: "evil\u202Etxt.exe", want: '"evil\\u202etxt.exe"' }],
    ["a bidi isolate", { given: "a\u2066b\u2069", want: '"a\\u2066b\\u2069"' }],
    ["a line separator", { given: "a\u2028b", want: '"a\\u2028b"' }],
  ])("escapes %s so a terminal shows it instead of acting on it", (_name, { given, want }) => {
    expect(describeValue(given)).toBe(want);
  });

  it("keeps printable non-ASCII text as it is", () => {
    expect(describeValue("modèle-日本語")).toBe('"modèle-日本語"');
  });

  it("never shows any part of a long string", () => {
    const long = `sk-${"x".repeat(100)}`;
    expect(describeValue(long)).not.toContain("sk-");
  });
});

describe("describeSecret", () => {
  it("gives a string's length in characters and nothing of its content", () => {
    expect(describeSecret("hunter2-secret")).toBe("a 14-character string");
    expect(describeSecret("🔑🔑")).toBe("a 2-character string");
  });

  it("describes what is not a string like describeValue", () => {
    expect(describeSecret(undefined)).toBe("nothing");
    expect(describeSecret(42)).toBe("42");
    expect(describeSecret({ key: "secret" })).toBe("an object");
  });
});

describe("codePointLength", () => {
  it.each<[string, { given: string; want: number }]>([
    ["an empty string", { given: "", want: 0 }],
    ["ASCII", { given: "abc", want: 3 }],
    ["astral characters, one each", { given: "😀😀", want: 2 }],
    ["a lone surrogate, one", { given: "\ud800", want: 1 }],
    ["a combining mark, its own code point", { given: "e\u0301", want: 2 }],
  ])("counts %s", (_name, { given, want }) => {
    expect(codePointLength(given)).toBe(want);
  });

  it("counts what JSON Schema's maxLength counts: 2048 emoji are 2048, not 4096", () => {
    const value = "😀".repeat(2048);
    expect(value.length).toBe(4096);
    expect(codePointLength(value)).toBe(2048);
  });
});
