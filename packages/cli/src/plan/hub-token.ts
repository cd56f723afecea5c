import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";

/** HF_TOKEN, else the hub CLI's saved token ($HF_HOME/token, by default ~/.cache/huggingface/token). */
export async function hubToken(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const fromEnv = env.HF_TOKEN?.trim();
  if (fromEnv) return fromEnv;
  const home = env.HF_HOME ?? join(env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "huggingface");
  try {
    const saved = (await readFile(join(home, "token"), "utf8")).trim();
    return saved === "" ? undefined : saved;
  } catch {
    return undefined;
  }
}
