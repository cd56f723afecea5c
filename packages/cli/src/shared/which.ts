import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import { delimiter, isAbsolute, join } from "node:path";

/** The absolute path of an executable on PATH's absolute directories, like `command -v`, or undefined. */
export async function findExecutable(name: string, path: string | undefined): Promise<string | undefined> {
  for (const dir of (path ?? "").split(delimiter)) {
    // An empty or relative PATH entry means (a place under) the current directory, which we never search:
    // running `./python3` from wherever the user happens to be is a classic trap.
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    try {
      await access(candidate, constants.X_OK);
      if ((await stat(candidate)).isFile()) return candidate;
    } catch {
      // Not here; try the next directory.
    }
  }
  return undefined;
}
