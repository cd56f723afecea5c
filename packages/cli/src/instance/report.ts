import { type ChildExit, escapeForTerminal } from "@finetune-studio/internal";
import type { CliIo } from "../shared/io.js";
import { crashHints } from "./crash-hints.js";

/** How many of vLLM's last lines a failure shows (and the crashed event keeps). */
export const LAST_LINES_SHOWN = 15;

/** How vLLM's main process ended; `byUs` when launch sent the signal (no OOM guess then). */
export function describeExit(exit: ChildExit, byUs = false): string {
  if (exit.code !== null) return `exit code ${exit.code}`;
  if (exit.signal !== null) {
    // The kernel's OOM killer sends SIGKILL: say so, since nothing else will.
    const oom = exit.signal === "SIGKILL" && !byUs ? ", as the out-of-memory killer sends" : "";
    return `signal ${exit.signal}${oom}`;
  }
  return exit.error?.message ?? "unknown";
}

/** vLLM's last lines, escaped, and hints for the failures we recognise. */
export function reportLastLines(lines: readonly string[], io: CliIo): void {
  const last = lines.slice(-LAST_LINES_SHOWN);
  if (last.length > 0)
    io.err(`Its last lines:\n${last.map((line) => `  | ${escapeForTerminal(line)}\n`).join("")}`);
  for (const hint of crashHints(lines)) io.err(`hint: ${hint}\n`);
}

export function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}
