// The durations a launch is stopped and waited by: `launch` takes both, `stop` the stop timeout (for what a
// killed launch left). Declared once, with their rule and default; instance/launch-settings.ts reads them,
// and launch's log directory (checked there too, against the filesystem it lands on).
import { secondsFlag, textFlag } from "./flags.js";

/** Downloading and loading the weights can take long. */
export const DEFAULT_TIMEOUT_SECONDS = 1800;
/** vLLM finishes its requests and frees the GPU within seconds; 30 s leaves room for a busy engine. */
export const DEFAULT_STOP_TIMEOUT_SECONDS = 30;

export const LAUNCH_TIMEOUT_FLAG = secondsFlag("timeout", {
  min: 1,
  fallback: DEFAULT_TIMEOUT_SECONDS,
  help: "give up (and stop vLLM) when it is not ready after S seconds; downloading\nand loading weights can take long",
});

export const STOP_TIMEOUT_FLAG = secondsFlag("stop-timeout", {
  min: 0,
  fallback: DEFAULT_STOP_TIMEOUT_SECONDS,
  help: "seconds vLLM gets to stop after SIGTERM (or Ctrl-C) before its whole\nprocess group is killed",
});

export const LOG_DIR_FLAG = textFlag("log-dir", {
  valueName: "DIR",
  help: "also write vLLM's output to DIR/vllm-<port>.log, launch's events (started,\nready, stopped, crashed with the last lines) to DIR/events.jsonl as JSON\nlines, and vLLM's process group id to DIR/vllm-<port>.pid while it runs",
});
