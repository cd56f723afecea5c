// Words made only of these characters mean the same to every POSIX shell when left unquoted.
const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;
// The command name is stricter: `a=b` there would be read as a variable assignment.
const PLAIN_COMMAND = /^[A-Za-z0-9_./-]+$/;

/**
 * Quotes one word for a POSIX shell. Single quotes keep every byte literal; a single quote itself is closed,
 * escaped and reopened (`'\''`). NUL cannot be passed in argv at all, so it is refused.
 */
export function quoteShellWord(word: string, position = 1): string {
  if (word.includes("\0")) throw new TypeError("a shell word cannot hold a NUL character");
  const plain = position === 0 ? PLAIN_COMMAND : PLAIN_WORD;
  if (plain.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The one place shell text is made: each argv word quoted, joined by spaces. `sh -c` parses it back to argv. */
export function toShellText(argv: readonly string[]): string {
  return argv.map((word, index) => quoteShellWord(word, index)).join(" ");
}
