import { closeSync, renameSync, rmSync, writeSync } from "node:fs";
import { openToAppend } from "../shared/safe-files.js";

/** Where a log file rotates: past this size it becomes `<name>.1` (replacing the older one) and starts anew. */
export const MAX_LOG_FILE_BYTES = 64 * 1024 * 1024;

/**
 * vLLM's output as it printed it, in a file that never follows a planted symbolic link and never grows past
 * two files of `maxBytes`: the current one and the one before it (`<name>.1`).
 */
export class LogFile {
  readonly path: string;
  readonly #maxBytes: number;
  #fd: number | undefined;
  #bytes = 0;

  /** Opens (creates) `path` to append; throws a FileWriteError for a link or an unwritable place. */
  constructor(path: string, maxBytes = MAX_LOG_FILE_BYTES) {
    this.path = path;
    this.#maxBytes = maxBytes;
    this.#fd = openToAppend(path);
  }

  write(line: string): void {
    if (this.#fd === undefined) return;
    const bytes = Buffer.byteLength(line) + 1;
    if (this.#bytes > 0 && this.#bytes + bytes > this.#maxBytes) this.#rotate();
    if (this.#fd === undefined) return;
    writeSync(this.#fd, `${line}\n`);
    this.#bytes += bytes;
  }

  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }

  #rotate(): void {
    this.close();
    const previous = `${this.path}.1`;
    rmSync(previous, { force: true });
    renameSync(this.path, previous);
    this.#fd = openToAppend(this.path);
    this.#bytes = 0;
  }
}
