import { closeSync, renameSync, rmSync, writeSync } from "node:fs";
import { resolve } from "node:path";
import { hasTerminalControl } from "@finetune-studio/internal";
import { UsageError } from "../shared/io.js";
import { kernelFilesystemOf, openToAppend } from "../shared/safe-files.js";

/** Where a log file rotates: past this size it becomes `<name>.1` (replacing the older one) and starts anew. */
export const MAX_LOG_FILE_BYTES = 64 * 1024 * 1024;

/**
 * The --log-dir a launch was given, made absolute; refused when it is no directory path, or lies in one of
 * the kernel's filesystems, where no log belongs (and where /proc answers a mkdir with "not found").
 */
export function checkLogDir(value: unknown, helpFor: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value === "" || hasTerminalControl(value)) {
    throw new UsageError("--log-dir: must be a directory path without control characters", helpFor);
  }
  const kernel = kernelFilesystemOf(value);
  if (kernel !== undefined) {
    throw new UsageError(
      `--log-dir: ${JSON.stringify(value)} is under ${kernel}, a kernel filesystem that holds no log files; choose a directory on disk (say ./logs)`,
      helpFor,
    );
  }
  return resolve(value);
}

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
