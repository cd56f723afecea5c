// C0 controls and DEL (NUL and newlines cannot travel in argv or a header), the C1 controls (U+009B starts a
// terminal sequence, U+0085 is a line break to some) and the bidirectional marks, overrides and isolates
// (U+202E shows what follows reversed): none belongs in a name, and each would steer a terminal it is
// printed on. The same set as @finetune-studio/internal's hasTerminalControl.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;

/** True when the string holds a character a name must not: C0, DEL, C1, or a bidirectional control. */
export function hasControlCharacter(text: string): boolean {
  return CONTROL.test(text);
}

export function hasWhitespace(text: string): boolean {
  return /\s/u.test(text);
}
