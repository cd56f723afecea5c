import { describe, expect, it } from "vitest";
import { escapeForTerminal, hasTerminalControl, jsonForTerminal } from "./terminal.js";

describe("escapeForTerminal", () => {
  it.each([
    ["ESC (an OSC title change)", "\u001b]0;pwned\u0007", "\\u001b]0;pwned\\u0007"],
    ["a newline", "a\nb", "a\\u000ab"],
    ["DEL", "a\u007f", "a\\u007f"],
    ["the C1 CSI", "\u009b31m", "\\u009b31m"],
    ["NEL (U+0085)", "a\u0085b", "a\\u0085b"],
    ["a right-to-left override", "evil\u202Etxt.exe", "evil\\u202etxt.exe"],
    ["an isolate", "\u2066x\u2069", "\\u2066x\\u2069"],
  ])("escapes %s", (_name, given, shown) => {
    expect(hasTerminalControl(given)).toBe(true);
    expect(escapeForTerminal(given)).toBe(shown);
  });

  it("leaves ordinary text, non-Latin letters included, as it is", () => {
    for (const text of ["acme/support-8b", "модель", "模型 v2", "C:\\models\\x", "a=b,c"]) {
      expect(hasTerminalControl(text)).toBe(false);
      expect(escapeForTerminal(text)).toBe(text);
    }
  });
});

describe("jsonForTerminal", () => {
  it("writes C1, DEL and bidirectional characters as escapes, and parses back to the same value", () => {
    const value = { id: "a\u009b2Jb\u202ec\u007f\u0085", nested: ["\u001b]0;x\u0007", "модель"] };
    const text = jsonForTerminal(value, 2);
    expect(hasTerminalControl(text.replaceAll("\n", ""))).toBe(false);
    expect(text).toContain("\\u009b");
    expect(JSON.parse(text)).toEqual(value);
  });
});
