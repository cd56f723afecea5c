// Cancellation without AbortSignal.any/timeout, which some supported runtimes lack or implement unevenly:
// a child signal follows its parent and aborts itself after a delay. A class, not closures, because one is
// made per attempt on the fast path.

export class LinkedSignal {
  private readonly controller = new AbortController();
  private readonly timer: ReturnType<typeof setTimeout>;
  private readonly follow: (() => void) | undefined;
  /** True once the delay, not the parent, aborted the signal. */
  timedOut = false;

  /** Aborts when `parent` does (with its reason), or after `timeoutMs` with `onTimeout()` as the reason. */
  constructor(
    private readonly parent: AbortSignal | undefined,
    timeoutMs: number,
    private readonly onTimeout?: () => unknown,
  ) {
    this.timer = setTimeout(expire, timeoutMs, this);
    if (parent === undefined) return;
    this.follow = () => this.controller.abort(parent.reason);
    if (parent.aborted) this.follow();
    else parent.addEventListener("abort", this.follow, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Stops the timer but keeps following the parent (a stream's body outlives its attempt's timeout). */
  stopTimer(): void {
    clearTimeout(this.timer);
  }

  /** Clears the timer and stops following the parent; call it when the work is done. */
  dispose(): void {
    clearTimeout(this.timer);
    if (this.follow) this.parent?.removeEventListener("abort", this.follow);
  }

  /** @internal */
  expire(): void {
    this.timedOut = true;
    this.controller.abort(this.onTimeout?.());
  }
}

function expire(linked: LinkedSignal): void {
  linked.expire();
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
