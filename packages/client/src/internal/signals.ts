// Cancellation without AbortSignal.any/timeout, which some supported runtimes lack or implement unevenly:
// a child signal follows its parent and aborts itself after a delay. A class, not closures, because one is
// made per attempt on the fast path.

export class LinkedSignal {
  readonly #controller = new AbortController();
  readonly #timer: ReturnType<typeof setTimeout>;
  readonly #parent: AbortSignal | undefined;
  readonly #follow = () => this.#controller.abort(this.#parent?.reason);
  /** True once the delay, not the parent, aborted the signal. */
  timedOut = false;

  /** Aborts when `parent` does (with its reason), or after `timeoutMs` with `onTimeout()` as the reason. */
  constructor(parent: AbortSignal | undefined, timeoutMs: number, onTimeout?: () => unknown) {
    this.#parent = parent;
    this.#timer = setTimeout(() => {
      this.timedOut = true;
      this.#controller.abort(onTimeout?.());
    }, timeoutMs);
    // Whatever it guards keeps the process alive by itself (a socket, a retry's pause). Unref'd, Node's
    // timer costs nothing per call; a ref'd one added about 20 µs to each request.
    (this.#timer as { unref?: () => void }).unref?.();
    if (parent?.aborted) this.#follow();
    else parent?.addEventListener("abort", this.#follow, { once: true });
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Stops the timer but keeps following the parent (a stream's body outlives its attempt's timeout). */
  stopTimer(): void {
    clearTimeout(this.#timer);
  }

  /** Clears the timer and stops following the parent; call it when the work is done. */
  dispose(): void {
    clearTimeout(this.#timer);
    this.#parent?.removeEventListener("abort", this.#follow);
  }
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
  });
}
