/**
 * The exit codes of `studio-serve`. `launch` otherwise exits with vLLM's own code (128 + the signal number
 * when a signal ended it), so a script sees what vLLM said.
 */
export const ExitCode = {
  Ok: 0,
  /** A check failed (doctor), the port is taken, or vLLM answered wrongly. */
  Failure: 1,
  /** Bad arguments: nothing was started. */
  Usage: 2,
  /** vLLM became ready but the one-token smoke completion failed; vLLM was stopped. */
  SmokeFailed: 3,
  /** vLLM was not ready before --timeout; it was stopped. (The code GNU `timeout` uses.) */
  Timeout: 124,
  /** `vllm` is not on PATH. (The code a shell uses for a missing command.) */
  NotFound: 127,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];
