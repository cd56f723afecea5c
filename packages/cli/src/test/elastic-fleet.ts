// An elastic launch watched through its state file, for the autoscaler's e2e tests: every wait polls the
// file launch writes, against a deadline; nothing sleeps for a fixed time racing the autoscaler.
import { type LaunchState, readLaunchState } from "../supervise/launch-state.js";

/** The stand-in vLLM with vLLM's capacity model: 2 requests at once (with ELASTIC), 25 ms a token, 3 s to load. */
export const CAPACITY = { FAKE_VLLM_PRISM: "0", FAKE_VLLM_LOAD_MS: "3000", FAKE_VLLM_TOKEN_MS: "25" };
export const ELASTIC = ["--max-num-seqs", "2", "--scale-on", "queue=2"];

/** Watches the state file every 100 ms: the most instances seen live at once, and GPUs shared, if ever. */
export function watchFleet(dir: string) {
  let state: LaunchState | undefined;
  let most = 0;
  const shared: string[] = [];
  const timer = setInterval(() => {
    state = readLaunchState(dir) ?? state;
    const live = (state?.instances ?? []).filter((one) => one.state !== "stopped" && one.state !== "asleep");
    most = Math.max(most, live.length);
    const gpus = live.flatMap((one) => one.gpu.split(","));
    if (new Set(gpus).size !== gpus.length) shared.push(gpus.join(" "));
  }, 100);
  return {
    get state() {
      return state;
    },
    get most() {
      return most;
    },
    shared,
    /** Resolves once `done` holds of the state file, or rejects with what it held after `withinMs`. */
    async until(what: string, done: (state: LaunchState) => boolean, withinMs: number): Promise<number> {
      const started = Date.now();
      while (state === undefined || !done(state)) {
        if (Date.now() - started > withinMs) {
          throw new Error(`${what} not within ${withinMs / 1000} s; state: ${JSON.stringify(state)}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return Date.now() - started;
    },
    stop: () => clearInterval(timer),
  };
}

/** How many of the state file's instances are in `wanted`. */
export const inState = (state: LaunchState, wanted: string) =>
  state.instances.filter((one) => one.state === wanted).length;
