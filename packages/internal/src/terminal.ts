// Text a user or a server gave, made safe to print on a terminal: nothing in it can move the cursor,
// retitle the window, reverse the text after it or start a new line.

// C0 controls (ESC starts a terminal sequence), DEL and the C1 controls (U+009B is a one-character CSI,
// U+0085 a line break to some), the bidirectional marks, overrides and isolates, and U+2028/U+2029.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/** Whether a string holds a character `escapeForTerminal` would escape: refuse it in names. */
export function hasTerminalControl(text: string): boolean {
  UNSAFE.lastIndex = 0;
  return UNSAFE.test(text);
}

/** Writes every such character as a visible `\uXXXX` escape; everything else is left as it is. */
export function escapeForTerminal(text: string): string {
  return text.replace(UNSAFE, asEscape);
}

function asEscape(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

// What JSON.stringify leaves raw (it escapes only U+0000..U+001F): DEL, C1 and the bidirectional marks.
// JSON's own syntax is ASCII, so these can only stand inside strings, where `\uXXXX` means the same.
const RAW_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/** JSON text for a terminal: the same document, with every character `escapeForTerminal` escapes written as `\uXXXX`. */
export function jsonForTerminal(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(RAW_IN_JSON, asEscape);
}
