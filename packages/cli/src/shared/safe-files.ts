import {
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join, parse, resolve, sep } from "node:path";
import { errorText } from "./messages.js";

// Creating files where someone else may have planted a link: a log directory, an --out folder. A file
// is never opened through a symbolic link, and a set of files that belong together is written whole or not
// at all (each to a temporary name first, then renamed into place).

/**
 * Who may read a new file: "private" (0600) for anything that may hold a secret (a pid, a log, a launch's
 * state); "shared" (0644, less the umask) for files meant for other users, such as a Prometheus
 * configuration its own user must read, or bench results.
 */
export type FileAccess = "private" | "shared";

const MODE_OF: Record<FileAccess, number> = { private: 0o600, shared: 0o644 };

/** A file could not be written as asked; the message names the path and the rule. */
export class FileWriteError extends Error {
  override readonly name = "FileWriteError";
}

const NO_FOLLOW = constants.O_NOFOLLOW;

/** Opens `path` to append (creating it, mode 600), refusing a symbolic link in its place. */
export function openToAppend(path: string): number {
  try {
    return openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NO_FOLLOW, 0o600);
  } catch (error) {
    throw refusal(path, error);
  }
}

/** Writes `text` to a new file at `path` (private unless asked): a regular file left there is replaced, a link refused. */
export function writeFreshFile(path: string, text: string, access: FileAccess = "private"): void {
  if (kindOf(path) === "file") rmSync(path, { force: true });
  let fd: number;
  try {
    fd = openSync(
      path,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW,
      MODE_OF[access],
    );
  } catch (error) {
    throw refusal(path, error);
  }
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes every file into `dir` (made if missing), or none of them: each is written to a temporary name
 * beside its target, and only when all are written are they renamed into place, last file first.
 */
export function writeFilesTogether(
  dir: string,
  files: readonly { name: string; text: string }[],
  access: FileAccess = "private",
): string[] {
  try {
    makeDirectories(dir);
  } catch (error) {
    throw new FileWriteError(`${dir}: cannot make the directory (${codeOf(error)}); nothing was written`);
  }
  const targets = files.map((file) => join(dir, file.name));
  for (const target of targets) {
    const kind = kindOf(target);
    if (kind !== "none" && kind !== "file") {
      throw new FileWriteError(`${target}: is a ${kind}, not a file it may replace; nothing was written`);
    }
  }
  const temporaries: string[] = [];
  try {
    files.forEach((file, index) => {
      const temporary = join(dir, `.${basename(file.name)}.${process.pid}.tmp`);
      writeFreshFile(temporary, file.text, access);
      temporaries[index] = temporary;
    });
  } catch (error) {
    for (const temporary of temporaries) rmSync(temporary, { force: true });
    if (error instanceof FileWriteError) throw new FileWriteError(`${error.message}; nothing was written`);
    throw error;
  }
  // The last file is often the one the first loads (a config and its rules): it goes into place first.
  for (let index = targets.length - 1; index >= 0; index--) {
    renameSync(temporaries[index] as string, targets[index] as string);
  }
  return targets;
}

/** Linux's kernel filesystems: nothing launch or an --out writes belongs there, and /proc refuses children. */
const KERNEL_FILESYSTEMS = ["/proc", "/sys", "/dev"];

/** The kernel filesystem `path` (made absolute) lies under, or undefined: /proc, /sys or /dev. */
export function kernelFilesystemOf(path: string): string | undefined {
  const absolute = resolve(path);
  return KERNEL_FILESYSTEMS.find((root) => absolute === root || absolute.startsWith(`${root}/`));
}

/**
 * `mkdir -p`, one component at a time, so it ends after as many mkdir calls as `dir` has parts. Node's own
 * `mkdirSync(dir, { recursive: true })` never ends when a parent exists but its child is "not found" (procfs
 * answers ENOENT to a mkdir under /proc; a dangling link does too): it steps back to the parent on ENOENT and
 * forward on EEXIST, at full CPU, with the event loop blocked so no signal is handled. Throws the first
 * failure (an errno error), or ENOTDIR when `dir` exists but is not a directory.
 */
export function makeDirectories(dir: string, mode = 0o777): void {
  const absolute = resolve(dir);
  let path = parse(absolute).root;
  for (const part of absolute
    .slice(path.length)
    .split(sep)
    .filter((name) => name !== "")) {
    path = join(path, part);
    try {
      mkdirSync(path, { mode });
    } catch (error) {
      if (codeOf(error) !== "EEXIST") throw error;
    }
  }
  if (!statSync(absolute).isDirectory()) {
    throw Object.assign(new Error(`${absolute}: not a directory`), { code: "ENOTDIR" });
  }
}

function kindOf(path: string): "none" | "file" | "directory" | "symbolic link" | "special file" {
  try {
    const stats = lstatSync(path);
    if (stats.isSymbolicLink()) return "symbolic link";
    if (stats.isDirectory()) return "directory";
    return stats.isFile() ? "file" : "special file";
  } catch {
    return "none";
  }
}

function refusal(path: string, error: unknown): FileWriteError {
  const code = codeOf(error);
  if (code === "ELOOP" || (code === "EEXIST" && kindOf(path) === "symbolic link")) {
    return new FileWriteError(
      `${path}: is a symbolic link; it is not followed (remove it, or choose another directory)`,
    );
  }
  return new FileWriteError(`${path}: cannot be written (${code}) in ${dirname(path)}`);
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : errorText(error);
}
