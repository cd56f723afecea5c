import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import { delimiter, join } from "node:path";

/** The absolute path of an executable on PATH, like `command -v`, or undefined. */
export async function findExecutable(name: string, path: string | undefined): Promise<string | undefined> {
  for (const dir of (path ?? "").split(delimiter)) {
    // An empty PATH entry means the current directory, which we do not search: it is a classic trap.
    if (dir === "") continue;
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
