/**
 * Splits a stream's chunks into lines and calls `onLine` for each complete one. A line rewritten with
 * carriage returns (a download progress bar) counts as what a terminal would finally show.
 */
export class LogLines {
  readonly #onLine: (line: string) => void;
  #partial = "";

  constructor(onLine: (line: string) => void) {
    this.#onLine = onLine;
  }

  push(chunk: string): void {
    const parts = (this.#partial + chunk).split("\n");
    this.#partial = parts.pop() ?? "";
    for (const part of parts) this.#emit(part);
  }

  /** Emits what is left after the last newline, when the stream ends. */
  flush(): void {
    if (this.#partial !== "") this.#emit(this.#partial);
    this.#partial = "";
  }

  #emit(raw: string): void {
    const line = (raw.endsWith("\r") ? raw.slice(0, -1) : raw).split("\r").pop() ?? "";
    this.#onLine(line);
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
