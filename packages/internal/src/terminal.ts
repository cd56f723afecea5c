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
  return text.replace(UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
