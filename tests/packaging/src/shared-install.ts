// One npm install of the packed tarballs, shared by the test packages that need one (this one and
// tests/runtimes, which turbo runs at the same time): kept in the user's cache folder under a key made of
// the tarballs' bytes and the day (npm resolves the dependencies' ranges anew, so a new day installs anew).
// Whichever setup comes first installs, under a lock; the other waits for it and uses the same install.
// Not inside the workspace: Node looks for a module a package forgot to declare in every node_modules up
// the tree, and the workspace's own would hide the mistake.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { basename, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** $XDG_CACHE_HOME/finetune-studio-sdk/packed-installs, ~/.cache when that is not set. */
export const installCache = join(
  process.env.XDG_CACHE_HOME || join(homedir(), ".cache"),
  "finetune-studio-sdk",
  "packed-installs",
);

/** How long a setup waits for another one's install; npm on a loaded 2-core machine takes well under this. */
const WAIT_FOR_OTHER_MS = 300_000;
/** A lock with no pid written after this long was left by a setup killed as it took the lock. */
const LOCK_WITHOUT_PID_MS = 30_000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The cache key of a set of tarballs: their names and bytes, and today's date (UTC). */
export function installKey(tarballs: readonly string[], now = new Date()): string {
  const hash = createHash("sha256");
  for (const tarball of [...tarballs].sort()) {
    hash.update(`${basename(tarball)}\0`);
    hash.update(readFileSync(tarball));
  }
  hash.update(now.toISOString().slice(0, 10));
  return hash.digest("hex").slice(0, 20);
}

/**
 * The project where `tarballs` are installed with plain npm, as a user would install them: made now, or
 * taken from the cache when a setup installed the same tarballs today. Read it, do not write into it.
 */
export async function sharedInstall(tarballs: readonly string[], cache = installCache): Promise<string> {
  const project = join(cache, installKey(tarballs));
  const lock = `${project}.lock`;
  mkdirSync(cache, { recursive: true });
  const deadline = Date.now() + WAIT_FOR_OTHER_MS;
  while (!existsSync(join(project, "node_modules"))) {
    if (takeLock(lock)) {
      try {
        if (!existsSync(join(project, "node_modules"))) install(tarballs, project);
      } finally {
        rmSync(lock, { recursive: true, force: true });
      }
      pruneOldInstalls(cache);
      break;
    }
    if (Date.now() > deadline) {
      throw new Error(`another test setup has held ${lock} for ${WAIT_FOR_OTHER_MS / 1000} s: remove it`);
    }
    await sleep(250);
  }
  return project;
}

/** npm install into a staging folder, renamed into place once complete: a half install is never used. */
function install(tarballs: readonly string[], project: string): void {
  const staging = `${project}.staging-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging);
  try {
    writeFileSync(
      join(staging, "package.json"),
      `${JSON.stringify({ name: "consumer", version: "1.0.0", private: true }, null, 2)}\n`,
    );
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...tarballs], {
      cwd: staging,
      stdio: "pipe",
    });
    renameSync(staging, project);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** Takes the lock (a directory holding the taker's pid), or frees a lock whose taker is gone. */
function takeLock(lock: string): boolean {
  try {
    mkdirSync(lock);
    writeFileSync(join(lock, "pid"), String(process.pid));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  if (lockHolderGone(lock)) rmSync(lock, { recursive: true, force: true });
  return false;
}

function lockHolderGone(lock: string): boolean {
  try {
    const pid = Number(readFileSync(join(lock, "pid"), "utf8"));
    process.kill(pid, 0);
    return false;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ESRCH") return true;
    if (code === "ENOENT") {
      try {
        return Date.now() - statSync(lock).mtimeMs > LOCK_WITHOUT_PID_MS;
      } catch {
        return false; // the lock went away meanwhile
      }
    }
    return false; // EPERM: alive, another user's; or an unreadable pid: leave it
  }
}

/** Removes installs made before yesterday: their key's day is past, so nothing uses them again. */
function pruneOldInstalls(cache: string): void {
  for (const entry of readdirSync(cache)) {
    const path = join(cache, entry);
    if (/\.(lock|staging-\d+)$/.test(entry)) continue;
    if (Date.now() - statSync(path).mtimeMs > 2 * DAY_MS) rmSync(path, { recursive: true, force: true });
  }
}
