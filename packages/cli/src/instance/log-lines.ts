/** The longest line kept from a child's output; the rest of a longer one is counted, not stored. */
export const MAX_LINE_CHARS = 16 * 1024;

/**
 * Splits a stream's chunks into lines and calls `onLine` for each complete one. A line rewritten with
 * carriage returns (a download progress bar) counts as what a terminal would finally show. Memory stays
 * bounded whatever the child writes: only the text after the last carriage return is kept, at most
 * `MAX_LINE_CHARS` of it, and each chunk is scanned once.
 */
export class LogLines {
  readonly #onLine: (line: string) => void;
  readonly #maxChars: number;
  #partial = "";
  #cut = 0;

  constructor(onLine: (line: string) => void, maxChars = MAX_LINE_CHARS) {
    this.#onLine = onLine;
    this.#maxChars = maxChars;
  }

  push(chunk: string): void {
    let start = 0;
    for (let newline = chunk.indexOf("\n"); newline !== -1; newline = chunk.indexOf("\n", start)) {
      this.#append(chunk.slice(start, newline));
      this.#emit();
      start = newline + 1;
    }
    this.#append(chunk.slice(start));
  }

  /** Emits what is left after the last newline, when the stream ends. */
  flush(): void {
    if (this.#partial !== "" || this.#cut > 0) this.#emit();
  }

  #append(text: string): void {
    if (text === "") return;
    // A carriage return before the text's end: what came before it is overwritten on a terminal.
    const overwrite = text.length < 2 ? -1 : text.lastIndexOf("\r", text.length - 2);
    if (overwrite !== -1) this.#restart(text.slice(overwrite + 1));
    else if (this.#partial.endsWith("\r")) this.#restart(text);
    else this.#keep(text);
  }

  #restart(text: string): void {
    this.#partial = "";
    this.#cut = 0;
    this.#keep(text);
  }

  #keep(text: string): void {
    const room = this.#maxChars - this.#partial.length;
    if (text.length <= room) {
      this.#partial += text;
      return;
    }
    this.#partial += text.slice(0, Math.max(0, room));
    this.#cut += text.length - Math.max(0, room);
  }

  #emit(): void {
    const line = this.#partial.endsWith("\r") ? this.#partial.slice(0, -1) : this.#partial;
    const cut = this.#cut;
    this.#partial = "";
    this.#cut = 0;
    this.#onLine(cut > 0 ? `${line}… (${cut} more characters not kept)` : line);
  }
}

/** The last `size` lines seen, oldest first: what a crash report shows. */
export class RecentLines {
  readonly #size: number;
  readonly #lines: string[] = [];

  constructor(size = 40) {
    this.#size = size;
  }

  add(line: string): void {
    this.#lines.push(line);
    if (this.#lines.length > this.#size) this.#lines.shift();
  }

  lines(): readonly string[] {
    return this.#lines;
  }
}
