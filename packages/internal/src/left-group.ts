// Process groups this process did not start: the ones a killed `launch` left serving, found again from the
// pids it recorded. A pid can be reused once its process is gone, so a group is only signalled while it is
// provably the same: its leader's start time matches the one recorded, or the leader is gone and the group
// still has members (Linux never hands out a pid that is still some group's id). Linux only (/proc).
import { readFileSync } from "node:fs";
import { signalGroup, waitUntil } from "./process-group.js";

/** When process `pid` started, in clock ticks since boot (/proc/PID/stat field 22); undefined if unknown. */
export function processStartTicks(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: the fields after it follow its last ')'.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19];
  } catch {
    return undefined;
  }
}

/** `gone`: no process of the group is left; `ours`: it is the group recorded; `other`: the pid was reused. */
export function leftGroupState(pgid: number, startTicks: string): "gone" | "ours" | "other" {
  if (!signalGroup(pgid, 0)) return "gone";
  const leaderStart = processStartTicks(pgid);
  if (leaderStart === undefined) return "ours";
  return leaderStart === startTicks ? "ours" : "other";
}

/**
 * Stops a left group: `signal`, then SIGKILL after `graceMs`; true once none of it is left. A group that is
 * not provably the recorded one is never signalled (false).
 */
export async function stopLeftGroup(
  pgid: number,
  startTicks: string,
  options: { graceMs: number; signal?: NodeJS.Signals; killWaitMs?: number },
): Promise<boolean> {
  const state = leftGroupState(pgid, startTicks);
  if (state !== "ours") return state === "gone";
  signalGroup(pgid, options.signal ?? "SIGTERM");
  if (await waitUntil(() => !signalGroup(pgid, 0), options.graceMs)) return true;
  signalGroup(pgid, "SIGKILL");
  return await waitUntil(() => !signalGroup(pgid, 0), options.killWaitMs ?? 5_000);
}
