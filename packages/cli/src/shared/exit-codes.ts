/**
 * The exit codes of `studio-serve`. `launch` otherwise exits with vLLM's own code (128 + the signal number
 * when a signal ended it), so a script sees what vLLM said.
 */
export const ExitCode = {
  Ok: 0,
  /** A check failed (doctor), the port is taken, or vLLM answered wrongly. */
  Failure: 1,
  /** plan: the verdict is that the model does not fit, or that vLLM would refuse these settings at start-up. */
  DoesNotFit: 1,
  /** Bad arguments: nothing was started. */
  Usage: 2,
  /** vLLM became ready but the one-token smoke completion failed; vLLM was stopped. */
  SmokeFailed: 3,
  /**
   * plan: the model's files could not be read (a local path that is not a model, a hub that cannot be reached
   * or refuses): no verdict, so never the code of one.
   */
  ModelUnreadable: 4,
  /** A bug: an error the command did not expect (BSD sysexits' EX_SOFTWARE), never a verdict's code. */
  Unexpected: 70,
  /** Ctrl-C (SIGINT) ended a bench run; what was measured is still reported. (128 + SIGINT's number 2.) */
  Interrupted: 130,
  /** vLLM was not ready before --timeout; it was stopped. (The code GNU `timeout` uses.) */
  Timeout: 124,
  /** `vllm` is not on PATH. (The code a shell uses for a missing command.) */
  NotFound: 127,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];
