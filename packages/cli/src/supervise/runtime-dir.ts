import { lstatSync, mkdirSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import {
  describeParts,
  type LaunchState,
  type LeftPart,
  leftParts,
  readLaunchState,
  stopLeftParts,
} from "./launch-state.js";

/**
 * The private directory of a launch (mode 0700): the control socket, HAProxy's configuration
 * and runtime socket, and the state file. Its name holds the user and the port clients use, so
 * `studio-serve reload --port P`, `adapter ... --port P` and `stop --port P` find the launch unaided.
 */
export function runtimeDirOf(port: number, env: NodeJS.ProcessEnv): string {
  const base = env.XDG_RUNTIME_DIR && isAbsolute(env.XDG_RUNTIME_DIR) ? env.XDG_RUNTIME_DIR : tmpdir();
  return join(base, `studio-serve-${process.getuid?.() ?? 0}-${port}`);
}

export function controlSocketOf(dir: string): string {
  return join(dir, "control.sock");
}

/** What is at the directory of a port: nothing, a launch that answers, or the parts a killed one left. */
export type Found =
  | { kind: "nothing" }
  | { kind: "running" }
  | { kind: "left"; parts: LeftPart[]; state: LaunchState }
  | { kind: "foreign"; problem: string };

export async function findLaunch(dir: string): Promise<Found> {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(dir);
  } catch {
    return { kind: "nothing" };
  }
  if (!stat.isDirectory() || stat.uid !== (process.getuid?.() ?? stat.uid) || (stat.mode & 0o077) !== 0) {
    return {
      kind: "foreign",
      problem: `${dir} exists and is not a private directory of this user: remove it`,
    };
  }
  if (await answers(controlSocketOf(dir))) return { kind: "running" };
  const state = readLaunchState(dir);
  const parts = state === undefined ? [] : leftParts(state);
  return parts.length === 0 || state === undefined ? { kind: "nothing" } : { kind: "left", parts, state };
}

/**
 * Stops what a killed launch left (HAProxy, then its instances) and removes its directory, saying what it
 * does on `say`; returns a problem when a part would not stop (then the directory stays, for another try).
 */
export async function cleanUpLeftLaunch(
  dir: string,
  found: Extract<Found, { kind: "left" }>,
  graceMs: number,
  say: (line: string) => void,
): Promise<string | undefined> {
  say(
    `the launch before (pid ${found.state.launch.pid}) was killed and left ${describeParts(found.parts)} running; stopping them`,
  );
  const stubborn = await stopLeftParts(found.parts, graceMs);
  if (stubborn.length > 0) return `could not stop ${stubborn.join(", ")}: stop them by hand`;
  rmSync(dir, { recursive: true, force: true });
  say("stopped what the launch before left; nothing of it runs now");
  return undefined;
}

/**
 * Makes the directory, or takes over one a stopped or killed launch left behind (stopping what it left
 * running first). Refuses one that another user owns, that others may enter, or where a launch answers.
 */
export async function makeRuntimeDir(
  dir: string,
  graceMs: number,
  say: (line: string) => void,
): Promise<string | undefined> {
  const found = await findLaunch(dir);
  if (found.kind === "foreign") return found.problem;
  if (found.kind === "running") return "another studio-serve launch serves this port";
  if (found.kind === "left") {
    const problem = await cleanUpLeftLaunch(dir, found, graceMs, say);
    if (problem !== undefined) return problem;
  }
  rmSync(dir, { recursive: true, force: true });
  try {
    mkdirSync(dir, { mode: 0o700 });
    return undefined;
  } catch (error) {
    return String(error);
  }
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
