/** The signals that ask launch to stop, all handled alike. */
export const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"] as const;

/**
 * Step 4: while vLLM runs, launch owns these signals: the first asks for a graceful stop, any second one
 * forces it. Returns the function that gives them back.
 */
export function onStopSignals(handler: (signal: NodeJS.Signals, count: number) => void): () => void {
  let count = 0;
  const listener = (signal: NodeJS.Signals) => {
    count += 1;
    handler(signal, count);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, listener);
  return () => {
    for (const signal of STOP_SIGNALS) process.removeListener(signal, listener);
  };
}
