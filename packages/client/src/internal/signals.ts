// Cancellation without AbortSignal.any/timeout, which some supported runtimes lack or implement unevenly:
// a child signal follows its parent and, optionally, aborts itself after a delay with a chosen reason.

/** Throws the signal's reason (what `fetch` does) when it is already aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason;
}

export interface LinkedSignal {
  readonly signal: AbortSignal;
  /** True once the delay, not the parent, aborted the signal. */
  readonly timedOut: boolean;
  /** Clears the timer and stops following the parent; call it when the work is done. */
  dispose(): void;
}

/** A signal that aborts when `parent` does (with its reason), or after `timeoutMs` with `onTimeout()`. */
export function linkSignal(
  parent: AbortSignal | undefined,
  timeoutMs: number,
  onTimeout: () => unknown,
): LinkedSignal {
  const controller = new AbortController();
  let timedOut = false;
  const follow = () => controller.abort(parent?.reason);
  if (parent?.aborted) follow();
  else parent?.addEventListener("abort", follow, { once: true });
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(onTimeout());
  }, timeoutMs);
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    dispose() {
      clearTimeout(timer);
      parent?.removeEventListener("abort", follow);
    },
  };
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
