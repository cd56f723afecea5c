/** One line per attempt, handed to the `logger` option. It never holds the token. */
export interface StudioRequestLog {
  readonly method: string;
  /** The request path without the base URL, e.g. `/api/v1/public/projects/6f1c…`. */
  readonly path: string;
  /** 1 for the first try, 2 for the first retry, and so on. */
  readonly attempt: number;
  /** The HTTP status, when the server answered. */
  readonly status: number | undefined;
  readonly durationMs: number;
  /** What the request carried in `Authorization`, redacted: `Bearer [redacted]`, or undefined when none. */
  readonly authorization: string | undefined;
  readonly outcome: "ok" | "http-error" | "timeout" | "connection-error" | "aborted";
  /** When the attempt will be retried, after how long. */
  readonly retryInMs: number | undefined;
}

/** Receives one entry per attempt; what it throws is ignored, so logging can never break a request. */
export type StudioLogger = (entry: StudioRequestLog) => void;
