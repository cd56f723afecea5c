import { lstatSync, mkdirSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";

/**
 * The private directory of a multi-instance launch (mode 0700): the relays' sockets, the control socket,
 * nginx's configuration, pid, logs and temp files. Its name holds the user and the port clients use, so
 * `studio-serve reload --port P` and `adapter ... --port P` find the launch without being told more.
 */
export function runtimeDirOf(port: number, env: NodeJS.ProcessEnv): string {
  const base = env.XDG_RUNTIME_DIR && isAbsolute(env.XDG_RUNTIME_DIR) ? env.XDG_RUNTIME_DIR : tmpdir();
  return join(base, `studio-serve-${process.getuid?.() ?? 0}-${port}`);
}

export function controlSocketOf(dir: string): string {
  return join(dir, "control.sock");
}

/**
 * Makes the directory, or takes over a stale one a killed launch left behind. Refuses one that another
 * user owns, that others may enter, or where a launch still answers.
 */
export async function makeRuntimeDir(dir: string): Promise<string | undefined> {
  try {
    mkdirSync(dir, { mode: 0o700 });
    return undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") return String(error);
  }
  const stat = lstatSync(dir);
  if (!stat.isDirectory() || stat.uid !== (process.getuid?.() ?? stat.uid) || (stat.mode & 0o077) !== 0) {
    return `${dir} exists and is not a private directory of this user: remove it`;
  }
  if (await answers(controlSocketOf(dir))) return "another studio-serve launch serves this port";
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { mode: 0o700 });
  return undefined;
}

function answers(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(socketPath);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
