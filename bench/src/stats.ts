// Order statistics for latency samples. Medians and p99 rather than means: a benchmark on a shared machine
// sees rare long pauses (GC, another process taking the core), and a mean would smear them over every call.

/** The value below which `fraction` of the samples fall (nearest rank, so it is always a real sample). */
export function percentile(samples: readonly number[], fraction: number): number {
  if (samples.length === 0) throw new RangeError("percentile of no samples");
  if (!(fraction >= 0 && fraction <= 1)) throw new RangeError(`fraction must be in [0, 1], got ${fraction}`);
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil(fraction * sorted.length));
  return sorted[rank - 1] as number;
}

/** The middle value; the mean of the two middle values for an even count. */
export function median(samples: readonly number[]): number {
  if (samples.length === 0) throw new RangeError("median of no samples");
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

export interface LatencySummary {
  readonly count: number;
  readonly median: number;
  readonly p99: number;
}

export function summarize(samples: readonly number[]): LatencySummary {
  return { count: samples.length, median: median(samples), p99: percentile(samples, 0.99) };
}

/** A figure over interleaved rounds: its median and the quartiles around it (nearest rank). */
export interface Spread {
  readonly median: number;
  readonly q1: number;
  readonly q3: number;
}

/**
 * The median and interquartile range of per-round figures. A ratio or difference taken within each round
 * (the variants ran back to back there) cancels most of a shared machine's slow spells; its spread says how
 * far two runs may differ.
 */
export function spread(perRound: readonly number[]): Spread {
  return { median: median(perRound), q1: percentile(perRound, 0.25), q3: percentile(perRound, 0.75) };
}

/** `f(a[i], b[i])` for each round `i` both have. */
export function perRound(
  a: readonly number[],
  b: readonly number[],
  f: (a: number, b: number) => number,
): number[] {
  return a.slice(0, Math.min(a.length, b.length)).map((value, i) => f(value, b[i] as number));
}
