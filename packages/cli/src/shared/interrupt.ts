// Ctrl-C and SIGTERM for a command that runs until it is done or stopped (bench, status --watch): one
// signal ends the run through an AbortSignal, so the command still reports what it has; the handlers are
// removed when the run ends, so nothing outlives it.

/**
 * Runs `work` with a signal that aborts on the first SIGINT or SIGTERM (calling `onInterrupt` once then),
 * and removes the handlers when it settles.
 */
export async function untilInterrupted<T>(
  work: (signal: AbortSignal) => Promise<T>,
  onInterrupt?: () => void,
): Promise<T> {
  const stop = new AbortController();
  const onSignal = () => {
    if (stop.signal.aborted) return;
    onInterrupt?.();
    stop.abort();
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    return await work(stop.signal);
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
