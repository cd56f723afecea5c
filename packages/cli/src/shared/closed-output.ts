// When the reader of stdout or stderr goes away (`studio-serve launch ... 2>&1 | head -5`), each later write
// fails with EPIPE, as an 'error' event that would end Node at once, leaving whatever a command started
// running. Instead the closed stream's writes are dropped and the command is told, once, to stop in order.

/** Writes to standard streams that may be closed under us; tells listeners when the first one is. */
export class ClosedOutput {
  readonly #listeners = new Set<() => void>();
  #closed = false;

  constructor(streams: readonly NodeJS.WriteStream[]) {
    // Any error leaves the stream unusable (EPIPE, or EIO from a terminal that went away): drop it alike.
    for (const stream of streams) stream.on("error", () => this.#close());
  }

  write(stream: NodeJS.WriteStream, text: string): void {
    if (!stream.destroyed) stream.write(text);
  }

  /** A promise that settles once `stream` has caught up, while it is behind and still open. */
  caughtUp(stream: NodeJS.WriteStream): Promise<void> | undefined {
    if (stream.destroyed || !stream.writableNeedDrain) return undefined;
    return new Promise((resolve) => {
      const done = () => {
        stream.off("drain", done);
        stream.off("close", done);
        resolve();
      };
      stream.on("drain", done);
      stream.on("close", done);
    });
  }

  /** Calls `listener` once a stream is closed; returns the unsubscribe. */
  onClosed(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    // No command is listening (none started anything that outlives it): end as Node would have.
    if (this.#listeners.size === 0) process.exit(1);
    for (const listener of this.#listeners) listener();
  }
}
