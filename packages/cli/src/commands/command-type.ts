import type { Flag } from "../shared/flags.js";
import type { CliIo } from "../shared/io.js";

/** One `studio-serve` command. Add a file under commands/ exporting one, and list it in registry.ts. */
export interface CliCommand {
  /** The word after `studio-serve`. */
  readonly name: string;
  /** Its lines in the main help: usage on the left, what it does on the right. */
  readonly synopsis: readonly (readonly [usage: string, summary: string])[];
  /** The whole `studio-serve <name> --help` text. */
  readonly help: string;
  /** Every flag it takes: a library's error about a field is reported as the flag that set it. */
  readonly flags: readonly Flag[];
  /** Runs it with the arguments after the name; resolves with the exit code. */
  run(args: readonly string[], io: CliIo): number | Promise<number>;
}
