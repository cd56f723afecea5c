/** True when the string holds a C0 control character or DEL: NUL and newlines cannot travel in argv or a header. */
export function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

export function hasWhitespace(text: string): boolean {
  return /\s/u.test(text);
}
