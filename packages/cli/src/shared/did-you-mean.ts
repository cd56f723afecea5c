// "Did you mean": the declared word nearest to a mistyped one (a flag, a command), by edit distance, or
// the declared word the typed one begins (`--tensor-parallel` for `--tensor-parallel-size`).

/** Levenshtein distance: insertions, deletions and substitutions, one each. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * The known word closest to `typed`: within a third of its length in edits (at least one), or one that
 * starts with it (three letters or more). Undefined when none is that close.
 */
export function nearestWord(typed: string, known: readonly string[]): string | undefined {
  if (typed.length < 2) return undefined;
  const within = Math.max(1, Math.floor(typed.length / 3));
  let best: { word: string; distance: number } | undefined;
  for (const word of known) {
    const distance = editDistance(typed, word);
    if (distance <= within && (best === undefined || distance < best.distance)) best = { word, distance };
  }
  if (best !== undefined) return best.word;
  return typed.length >= 3 ? known.find((word) => word.startsWith(typed)) : undefined;
}

/** `; did you mean --x?` for a message, or nothing. */
export function didYouMean(typed: string, known: readonly string[], prefix = ""): string {
  const word = nearestWord(typed, known);
  return word === undefined ? "" : `; did you mean ${prefix}${word}?`;
}
