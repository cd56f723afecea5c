/** Where the CLI writes and what it reads from its environment; tests pass their own. */
export interface CliIo {
  /** Results: the command, the config, the ready URL. */
  out(text: string): void;
  /** Everything else: progress, warnings, errors, vLLM's logs. */
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  /** `err` goes to a terminal: a progress line may redraw itself in place. Absent: it does not. */
  errIsTerminal?: boolean;
  /**
   * When `err` is behind (its reader is slow), a promise that settles once it has caught up; otherwise
   * undefined. A child's output is paused meanwhile, so launch never buffers without bound.
   */
  errCaughtUp?(): Promise<void> | undefined;
  /**
   * Calls `listener` once, when the reader of stdout or stderr has gone (a closed pipe): a command that
   * started processes stops them in order, as on SIGTERM. Returns the unsubscribe.
   */
  onOutputClosed?(listener: () => void): () => void;
}

/** A bad command line, reported as one line and exit code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
  /** The subcommand whose help to point to, e.g. `command lora`. */
  readonly helpFor: string | undefined;

  constructor(message: string, helpFor?: string) {
    super(message);
    this.helpFor = helpFor;
  }
}

/** Runs `read`, pointing a UsageError that names no help at `helpFor`'s (`launch lora`, not just `launch`). */
export function inHelp<T>(helpFor: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof UsageError && error.helpFor === undefined)
      throw new UsageError(error.message, helpFor);
    throw error;
  }
}
