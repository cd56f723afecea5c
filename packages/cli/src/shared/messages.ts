import { escapeForTerminal } from "@finetune-studio/internal";

// The one reader of an error's message in the CLI: `errorText` for a message kept as data (JSON output, a
// control-socket answer, another error's message), `messageOf` for the terminal.

/** An error's message as it is: anything thrown may be read, an Error or not. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** An error's message, escaped for the terminal (it may quote what a server or a child process sent). */
export function messageOf(error: unknown): string {
  return escapeForTerminal(errorText(error));
}
