import { isDeepStrictEqual } from "node:util";

interface Word {
  /** The argument the shell passes on. */
  readonly value: string;
  /** How it is written in the command, quotes included. */
  readonly raw: string;
}

/**
 * Lays out a builder's one-line `shell` over several lines, one option per line, joined by `\` line
 * continuations, so a long command reads well on a page. The words are never rewritten, only regrouped,
 * and the text is parsed back and must give exactly the builder's `argv`, or the build fails.
 */
export function multilineCommand(
  command: { shell: string; argv: readonly string[] },
  options: { breakBefore?: readonly string[]; width?: number } = {},
): string {
  const { breakBefore = [], width = 80 } = options;
  const words = splitWords(command.shell);
  const values = words.map((word) => word.value);
  if (!isDeepStrictEqual(values, command.argv)) {
    throw new Error(
      `shell text does not parse back to argv:\n${command.shell}\n${JSON.stringify(command.argv)}`,
    );
  }
  if (command.shell.length <= width) return command.shell;
  const lines: string[][] = [];
  for (const word of words) {
    const current = lines.at(-1);
    if (!current || word.value.startsWith("-") || breakBefore.includes(word.value)) lines.push([word.raw]);
    else current.push(word.raw);
  }
  return lines.map((line) => line.join(" ")).join(" \\\n  ");
}

/** Splits POSIX shell words: blanks separate, and single quotes, double quotes and backslashes quote. */
export function splitWords(shell: string): Word[] {
  const words: Word[] = [];
  let value: string | undefined;
  let start = 0;
  let i = 0;
  const finish = () => {
    if (value !== undefined) words.push({ value, raw: shell.slice(start, i) });
    value = undefined;
  };
  while (i < shell.length) {
    const char = shell.charAt(i);
    if (char === " " || char === "\t" || char === "\n") {
      finish();
      i += 1;
      continue;
    }
    if (value === undefined) {
      value = "";
      start = i;
    }
    if (char === "'") {
      const end = shell.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated ' in: ${shell}`);
      value += shell.slice(i + 1, end);
      i = end + 1;
    } else if (char === '"') {
      i += 1;
      while (i < shell.length && shell.charAt(i) !== '"') {
        if (shell.charAt(i) === "\\" && '$`"\\'.includes(shell.charAt(i + 1))) i += 1;
        value += shell.charAt(i);
        i += 1;
      }
      if (i >= shell.length) throw new Error(`unterminated " in: ${shell}`);
      i += 1;
    } else if (char === "\\") {
      value += shell.charAt(i + 1);
      i += 2;
    } else {
      value += char;
      i += 1;
    }
  }
  finish();
  return words;
}
