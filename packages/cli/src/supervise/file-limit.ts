import { readFileSync } from "node:fs";

/**
 * The hard limit on open files for processes this one starts (HAProxy raises its own soft limit up to it),
 * from /proc/self/limits; undefined where unknown (not Linux) or unlimited.
 */
export function hardOpenFileLimit(): number | undefined {
  try {
    const line = readFileSync("/proc/self/limits", "utf8")
      .split("\n")
      .find((entry) => entry.startsWith("Max open files"));
    const hard = line?.trim().split(/\s+/)[4];
    return hard !== undefined && /^\d+$/.test(hard) ? Number(hard) : undefined;
  } catch {
    return undefined;
  }
}
