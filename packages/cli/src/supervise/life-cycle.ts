// The life cycle of an instance: the one set of states that launch, reload, stop, status and the autoscaler
// move instances through, and the only moves allowed between them. Pure: no process, no I/O.

/**
 * - `starting`: its vLLM loads (or wakes) and answers nothing through the front door yet;
 * - `serving`: it takes requests (in HAProxy, or on the port clients call);
 * - `draining`: out of the balancer for new requests while its open ones finish;
 * - `asleep`: out of the balancer, its weights in host memory (vLLM's sleep mode);
 * - `stopped`: no process runs for it (never started, stopped, or crashed).
 */
export type InstanceState = "starting" | "serving" | "draining" | "asleep" | "stopped";

export const INSTANCE_STATES: readonly InstanceState[] = [
  "starting",
  "serving",
  "draining",
  "asleep",
  "stopped",
];

/**
 * Where each state may go. Every state may end (a crash, or launch stopping); an instance leaves the
 * balancer only by draining (no request fails on the way out), sleeps only once drained, and comes back
 * from sleep the way it comes up at first: starting, then serving once it answers again.
 */
const NEXT: Readonly<Record<InstanceState, readonly InstanceState[]>> = {
  stopped: ["starting"],
  starting: ["serving", "stopped"],
  serving: ["draining", "stopped"],
  draining: ["asleep", "stopped"],
  asleep: ["starting", "stopped"],
};

export function canMove(from: InstanceState, to: InstanceState): boolean {
  return NEXT[from].includes(to);
}

/** A move the life cycle does not allow: a bug in the caller, never a user's error. */
export class IllegalTransition extends Error {
  constructor(
    readonly who: string,
    readonly from: InstanceState,
    readonly to: InstanceState,
  ) {
    super(`${who}: cannot go from ${from} to ${to} (from ${from} it may go to ${NEXT[from].join(" or ")})`);
    this.name = "IllegalTransition";
  }
}

/** One instance's state; `onChange` hears every move (launch records it in its state file). */
export class LifeCycle {
  #state: InstanceState = "stopped";

  constructor(
    private readonly who: string,
    private readonly onChange: (state: InstanceState) => void = () => {},
  ) {}

  get state(): InstanceState {
    return this.#state;
  }

  /** Moves to `next`, or throws IllegalTransition and stays where it is. */
  to(next: InstanceState): void {
    if (!canMove(this.#state, next)) throw new IllegalTransition(this.who, this.#state, next);
    this.#state = next;
    this.onChange(next);
  }
}
