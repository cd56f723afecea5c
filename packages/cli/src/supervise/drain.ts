import { sleep } from "../shared/abortable-sleep.js";
import type { Balancer } from "./door.js";

/** How long a drain waits for an instance's open requests to finish before it gives up waiting. */
export const DRAIN_TIMEOUT_MS = 600_000;
/** How often the drain asks the balancer how many requests the instance still has. */
const DRAIN_POLL_MS = 100;

/**
 * How a drain ended: its open requests finished, the bound passed with some still open, launch began to
 * stop meanwhile, or it was refused ("alone": no other instance serves to take its requests).
 */
export type DrainOutcome = "drained" | "timed-out" | "stopping" | "alone";

/** Waits until the balancer has no open request at instance `index`, within DRAIN_TIMEOUT_MS. */
export async function untilDrained(
  balancer: Balancer,
  index: number,
  stop: AbortSignal,
): Promise<Exclude<DrainOutcome, "alone">> {
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (stop.aborted) return "stopping";
    if ((await balancer.openRequests(index)) === 0) return "drained";
    await sleep(DRAIN_POLL_MS, stop);
  }
  return stop.aborted ? "stopping" : "timed-out";
}
