import { closeSync, writeSync } from "node:fs";
import { openToAppend } from "../shared/safe-files.js";

/**
 * What launch itself did, as JSON lines a log collector can read (`<log-dir>/events.jsonl`): one object per
 * line with `time` (ISO 8601), `event` and `instance`. Events: `started` (pid, pgid, argv, logFile),
 * `ready` (url, model, seconds), `stopped` (reason, exitCode), `crashed` (exitCode, signal, lastLines).
 * `restarted` (pid, pgid, reason): a multi-instance launch restarted this instance (a rolling reload).
 */
export type LaunchEvent =
  | { event: "started"; pid: number | undefined; pgid: number | undefined; argv: string[]; logFile?: string }
  | { event: "ready"; url: string; model: string; seconds: number }
  | { event: "stopped"; reason: string; exitCode: number }
  | { event: "restarted"; pid: number | undefined; pgid: number | undefined; reason: string }
  | { event: "crashed"; exitCode: number; signal: string | null; lastLines: string[] };

export interface EventLog {
  write(event: LaunchEvent): void;
}

/**
 * Appends each event to `path`, one line each, synchronously so a crash loses none, never through a
 * symbolic link. Opening it once here refuses a planted link before anything starts.
 */
export function eventFile(path: string, instance: string): EventLog {
  closeSync(openToAppend(path));
  return {
    write(event) {
      const fd = openToAppend(path);
      try {
        writeSync(fd, `${JSON.stringify({ time: new Date().toISOString(), instance, ...event })}\n`);
      } finally {
        closeSync(fd);
      }
    },
  };
}

export const NO_EVENTS: EventLog = { write() {} };
