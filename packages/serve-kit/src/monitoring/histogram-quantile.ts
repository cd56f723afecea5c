/** One cumulative bucket of a classic Prometheus histogram: how many observations were at most `le`. */
export interface HistogramBucket {
  readonly le: number;
  readonly count: number;
}

/**
 * The q-quantile of a histogram, as Prometheus' `histogram_quantile` computes it: find the bucket the rank
 * falls in and interpolate linearly within its bounds (the first bucket starts at 0). A rank in the +Inf
 * bucket gives the highest finite bound. Undefined when there is no observation or no +Inf bucket.
 */
export function histogramQuantile(q: number, buckets: readonly HistogramBucket[]): number | undefined {
  if (Number.isNaN(q)) return undefined;
  if (q < 0) return Number.NEGATIVE_INFINITY;
  if (q > 1) return Number.POSITIVE_INFINITY;
  const sorted = [...buckets].filter((bucket) => !Number.isNaN(bucket.le)).sort((a, b) => a.le - b.le);
  if (sorted.length < 2 || sorted.at(-1)?.le !== Number.POSITIVE_INFINITY) return undefined;
  // Counts scraped at slightly different moments can dip; Prometheus evens them out the same way.
  let highest = 0;
  const cumulative = sorted.map((bucket) => {
    highest = Math.max(highest, Number.isFinite(bucket.count) ? bucket.count : 0);
    return { le: bucket.le, count: highest };
  });
  const observations = cumulative.at(-1)?.count ?? 0;
  if (observations <= 0) return undefined;
  let rank = q * observations;
  const index = cumulative.findIndex((bucket) => bucket.count >= rank);
  const bucket = cumulative[index];
  if (bucket === undefined) return undefined;
  if (index === cumulative.length - 1) return cumulative[index - 1]?.le;
  if (index === 0 && bucket.le <= 0) return bucket.le;
  let start = 0;
  let count = bucket.count;
  const below = cumulative[index - 1];
  if (below !== undefined) {
    start = below.le;
    count -= below.count;
    rank -= below.count;
  }
  if (count <= 0) return bucket.le;
  return start + (bucket.le - start) * (rank / count);
}
