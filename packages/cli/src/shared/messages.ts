import { escapeForTerminal } from "@finetune-studio/internal";

/** An error's message, escaped for the terminal (it may quote what a server or a child process sent). */
export function messageOf(error: unknown): string {
  return escapeForTerminal(error instanceof Error ? error.message : String(error));
}
