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

/**
 * What each code means, for which commands ("" for every one): the one list the main help, each command's
 * help and the README show.
 */
export const EXIT_CODE_MEANINGS: readonly (readonly [
  code: ExitCodeValue,
  commands: string,
  meaning: string,
])[] = [
  [ExitCode.Ok, "", "done (status: every instance is up; doctor: no required check failed)"],
  [
    ExitCode.Failure,
    "",
    "a failure: a check failed (doctor), an instance is not up (status), nothing completed\n(bench), a port is taken, a file could not be written",
  ],
  [
    ExitCode.Ok,
    "plan",
    'it fits (or the weights fit and the KV cache of an architecture it does not know cannot be\nsized: verdict "unknown")',
  ],
  [ExitCode.DoesNotFit, "plan", "it does not fit, or vLLM would refuse these settings"],
  [ExitCode.Failure, "stop", "something would not stop"],
  [ExitCode.Usage, "", "bad arguments: nothing was started or sent"],
  [ExitCode.SmokeFailed, "launch", "vLLM became ready but the smoke completion failed; it was stopped"],
  [ExitCode.ModelUnreadable, "plan", "the model's files could not be read: no verdict"],
  [ExitCode.Unexpected, "", "an unexpected error (a bug)"],
  [ExitCode.Timeout, "launch", "vLLM was not ready before --timeout; it was stopped"],
  [ExitCode.NotFound, "launch", "vllm is not on PATH"],
  [ExitCode.NotFound, "stop", "nothing ran on that port"],
  [ExitCode.Interrupted, "bench", "Ctrl-C ended the run; what was measured is still reported"],
];

/** The exit codes as the help lists them: every command's, or those `command` exits with. */
export function exitCodeHelp(command?: string): string {
  // A command's own meaning of a code stands in for the general one.
  const own = new Set(
    EXIT_CODE_MEANINGS.filter(([, commands]) => commands === command).map(([code]) => code),
  );
  const lines = EXIT_CODE_MEANINGS.filter(
    ([code, commands]) =>
      command === undefined || commands === command || (commands === "" && !own.has(code)),
  ).map(([code, commands, meaning]) => {
    const [first = "", ...more] =
      `${commands === "" || command !== undefined ? "" : `${commands}: `}${meaning}`.split("\n");
    return [`  ${String(code).padEnd(5)}${first}`, ...more.map((line) => `       ${line}`)].join("\n");
  });
  const launch =
    command === undefined || command === "launch"
      ? "\n  launch otherwise exits with vLLM's own code (128 + the signal's number when a signal ended it)"
      : "";
  return `Exit codes${command === undefined ? " (every command)" : ""}:\n${lines.join("\n")}${launch}`;
}
