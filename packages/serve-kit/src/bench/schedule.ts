// When each request of a rate-driven run is sent, as vLLM's benchmark schedules them (`get_request` in
// vllm/benchmarks/serve.py at commit 009e6d4a1cd6): gaps drawn from a gamma distribution of shape
// `burstiness` and scale 1 / (rate × burstiness) (burstiness 1 is a Poisson process, exponential gaps;
// below 1 burstier, above 1 more even), summed, then scaled so the last request goes out at n / rate.

/** A seeded source of numbers in [0, 1): the same seed gives the same schedule. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0 || 0x9e3779b9;
  return () => {
    // mulberry32
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A standard normal draw (Box-Muller). */
function normal(random: () => number): number {
  const u = 1 - random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/** A gamma(shape, scale) draw: Marsaglia and Tsang's method, boosted for shape < 1. */
export function gammaDraw(shape: number, scale: number, random: () => number): number {
  if (shape < 1) return gammaDraw(shape + 1, scale, random) * (1 - random()) ** (1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    const x = normal(random);
    const v = (1 + c * x) ** 3;
    if (v <= 0) continue;
    const u = 1 - random();
    if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v * scale;
  }
}

/**
 * The send time of each of `count` requests, in milliseconds from the start. An infinite rate sends them all
 * at once; an infinite burstiness evenly, 1 / rate apart.
 */
export function arrivalTimesMs(count: number, rate: number, burstiness = 1, seed = 0): number[] {
  if (count <= 0) return [];
  if (rate === Number.POSITIVE_INFINITY) return new Array(count).fill(0);
  const random = seededRandom(seed);
  const gaps =
    burstiness === Number.POSITIVE_INFINITY
      ? new Array<number>(count).fill(1 / rate)
      : Array.from({ length: count }, () => gammaDraw(burstiness, 1 / (rate * burstiness), random));
  const times: number[] = [];
  let total = 0;
  for (const gap of gaps) {
    total += gap;
    times.push(total);
  }
  // vLLM rescales so the run lasts n / rate whatever the draws: throughput then compares across seeds.
  const scale = total === 0 ? 1 : count / rate / total;
  return times.map((time) => time * scale * 1000);
}
