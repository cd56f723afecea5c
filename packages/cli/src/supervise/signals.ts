import { ExitCode } from "../shared/exit-codes.js";
import type { CliIo } from "../shared/io.js";

/** What the signals reach: the supervisor. */
export interface SignalTarget {
  /** A stop signal: the first stops gracefully, a second forces (the target tells them apart). */
  stopOn(signal: NodeJS.Signals): void;
  /** SIGHUP: a rolling reload where instances can drain, else a stop. */
  hangUp(): void;
  /** Whether a stop was asked already. */
  readonly stopping: boolean;
}

const STOP_SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGQUIT"];

/**
 * Owns the process's stop signals while `run` runs, then runs `shutDown` whatever ended it (its result, a
 * signal, or a throw): the one path by which every process group launch started is stopped. A closed stdout
 * or stderr (EPIPE) stops as SIGTERM would, never forcing, even after a signal (a terminal's Ctrl-C ends
 * `| head` as well, and the stop it started must stay graceful).
 */
export async function withSignalsOwned(
  target: SignalTarget,
  io: CliIo,
  run: () => Promise<number>,
  shutDown: (code: number) => Promise<number>,
): Promise<number> {
  const onStop = (signal: NodeJS.Signals) => target.stopOn(signal);
  const onHangUp = () => target.hangUp();
  for (const signal of STOP_SIGNALS) process.on(signal, onStop);
  process.on("SIGHUP", onHangUp);
  const unwatchOutput = io.onOutputClosed?.(() => {
    if (!target.stopping) target.stopOn("SIGPIPE");
  });
  let code: number = ExitCode.Failure;
  try {
    code = await run();
  } finally {
    code = await shutDown(code);
    for (const signal of STOP_SIGNALS) process.removeListener(signal, onStop);
    process.removeListener("SIGHUP", onHangUp);
    unwatchOutput?.();
  }
  return code;
}
