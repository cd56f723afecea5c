import { type BenchSlo, parseSlo, ServeConfigError } from "@finetune-studio/serve-kit";
import { UsageError } from "../shared/io.js";
import type { LoadShape } from "./run-load.js";

// The flags of `studio-serve bench`, checked before any request is sent.

export const BENCH_OPTIONS = {
  launch: { type: "string" },
  model: { type: "string" },
  rate: { type: "string" },
  burstiness: { type: "string" },
  seed: { type: "string" },
  concurrency: { type: "string" },
  sweep: { type: "string" },
  requests: { type: "string" },
  duration: { type: "string" },
  "input-tokens": { type: "string" },
  "output-tokens": { type: "string" },
  dataset: { type: "string" },
  slo: { type: "string" },
  attainment: { type: "string" },
  "target-rps": { type: "string" },
  timeout: { type: "string" },
  "api-key-env": { type: "string" },
  json: { type: "boolean" },
  out: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

/** One load level of a run: its shape and how it is named in tables. */
export interface LoadLevel {
  load: number;
  label: string;
  shape: LoadShape;
}

export interface BenchPlan {
  levels: LoadLevel[];
  /** "rate" or "concurrency": what the levels vary. */
  loadName: "request rate (req/s)" | "concurrency";
  requests: number;
  durationMs: number | undefined;
  inputTokens: number;
  outputTokens: number;
  slo: BenchSlo | undefined;
  attainment: number;
  targetRps: number | undefined;
  timeoutMs: number;
}

type Values = Record<string, string | boolean | string[] | undefined>;

function refuse(flag: string, rule: string, given: unknown): never {
  const shown = typeof given === "string" && given.length > 40 ? `${given.slice(0, 40)}…` : given;
  throw new UsageError(`--${flag}: ${rule} (given ${JSON.stringify(shown)})`, "bench");
}

function integer(values: Values, flag: string, fallback: number, min: number, max: number): number {
  const text = values[flag];
  if (text === undefined) return fallback;
  const number = typeof text === "string" && /^\d{1,9}$/.test(text) ? Number(text) : Number.NaN;
  if (!(number >= min && number <= max)) refuse(flag, `must be a whole number from ${min} to ${max}`, text);
  return number;
}

function positive(text: unknown, flag: string, allowInfinity = false): number {
  if (allowInfinity && text === "inf") return Number.POSITIVE_INFINITY;
  const number = typeof text === "string" && /^\d{1,9}(\.\d{1,9})?$/.test(text) ? Number(text) : Number.NaN;
  if (!(number > 0)) refuse(flag, `must be a number above 0${allowInfinity ? ", or inf" : ""}`, text);
  return number;
}

/**
 * Reads the load flags: --rate, --concurrency or --sweep (default: one request at a time); --concurrency
 * with --rate or a rate sweep caps the requests in flight (see `maxConcurrencyOf`).
 */
export function planBench(values: Values): BenchPlan {
  const given = ["rate", "sweep"].filter((flag) => values[flag] !== undefined);
  if (given.length > 1) {
    throw new UsageError(`--${given[0]} and --${given[1]}: give one way to offer the load`, "bench");
  }
  const maxConcurrency = maxConcurrencyOf(values);
  const burstiness = values.burstiness === undefined ? 1 : positive(values.burstiness, "burstiness", true);
  const seed = integer(values, "seed", 0, 0, 2 ** 31 - 1);
  const rateLevel = (rate: number): LoadLevel => ({
    load: rate,
    label: `rate ${rate === Number.POSITIVE_INFINITY ? "inf" : rate}${maxConcurrency === undefined ? "" : ` (max concurrency ${maxConcurrency})`}`,
    shape: {
      kind: "rate",
      rate,
      burstiness,
      seed,
      ...(maxConcurrency === undefined ? {} : { maxConcurrency }),
    },
  });
  const concurrencyLevel = (concurrency: number): LoadLevel => ({
    load: concurrency,
    label: `concurrency ${concurrency}`,
    shape: { kind: "concurrency", concurrency },
  });
  let levels: LoadLevel[];
  let loadName: BenchPlan["loadName"] = "concurrency";
  if (values.rate !== undefined) {
    levels = [rateLevel(positive(values.rate, "rate", true))];
    loadName = "request rate (req/s)";
  } else if (values.sweep !== undefined) {
    const match = /^(rate|concurrency):(.+)$/.exec(String(values.sweep));
    if (match === null) refuse("sweep", "must be rate:R1,R2,... or concurrency:N1,N2,...", values.sweep);
    const [, kind, list] = match as unknown as [string, "rate" | "concurrency", string];
    const loads = list.split(",");
    if (loads.length > 32) refuse("sweep", "must list at most 32 loads", values.sweep);
    levels =
      kind === "rate"
        ? loads.map((text) => rateLevel(positive(text, "sweep", true)))
        : loads.map((text) => concurrencyLevel(integer({ sweep: text }, "sweep", 1, 1, 100_000)));
    loadName = kind === "rate" ? "request rate (req/s)" : "concurrency";
  } else {
    levels = [concurrencyLevel(integer(values, "concurrency", 1, 1, 100_000))];
  }
  if (values.requests !== undefined && values.duration !== undefined) {
    throw new UsageError("--requests and --duration: give one way to end a run", "bench");
  }
  const durationMs =
    values.duration === undefined ? undefined : integer(values, "duration", 60, 1, 86_400) * 1000;
  if (durationMs !== undefined) checkRateForDuration(levels, durationMs, values);
  let slo: BenchSlo | undefined;
  try {
    slo = values.slo === undefined ? undefined : parseSlo(String(values.slo), "--slo");
  } catch (error) {
    if (error instanceof ServeConfigError)
      throw new UsageError(`${error.field}: ${error.rule} (given ${error.given})`, "bench");
    throw error;
  }
  const attainment = values.attainment === undefined ? 0.95 : positive(values.attainment, "attainment");
  if (attainment > 1) refuse("attainment", "must be a share from above 0 to 1", values.attainment);
  const targetRps =
    values["target-rps"] === undefined ? undefined : positive(values["target-rps"], "target-rps");
  if (targetRps !== undefined && slo === undefined) {
    throw new UsageError("--target-rps: needs --slo, which says what serving the traffic means", "bench");
  }
  return {
    levels,
    loadName,
    requests: integer(values, "requests", 100, 1, 1_000_000),
    durationMs,
    inputTokens: integer(values, "input-tokens", 256, 1, 1_000_000),
    outputTokens: integer(values, "output-tokens", 128, 1, 1_000_000),
    slo,
    attainment,
    targetRps,
    timeoutMs: integer(values, "timeout", 120, 1, 86_400) * 1000,
  };
}

// --concurrency beside --rate or a rate sweep (issue #31), as vLLM's `--max-concurrency` beside its
// `--request-rate`: the rate schedules the arrivals, the concurrency caps the requests in flight.

/** The cap on requests in flight for rate levels, or undefined when --concurrency sets the load itself. */
function maxConcurrencyOf(values: Values): number | undefined {
  if (values.concurrency === undefined) return undefined;
  const rates = values.rate !== undefined || String(values.sweep ?? "").startsWith("rate:");
  if (values.sweep !== undefined && !rates) {
    throw new UsageError(
      "--concurrency and --sweep concurrency:...: give one way to offer the load",
      "bench",
    );
  }
  return rates ? integer(values, "concurrency", 1, 1, 100_000) : undefined;
}

/** The most requests one level of a --duration run may schedule: the bound on --requests. */
const MAX_SCHEDULED = 1_000_000;

/** --duration with a rate: a finite rate schedules rate × duration requests; an infinite one needs a cap. */
function checkRateForDuration(levels: readonly LoadLevel[], durationMs: number, values: Values): void {
  for (const { shape } of levels) {
    if (shape.kind !== "rate") continue;
    if (shape.rate === Number.POSITIVE_INFINITY && shape.maxConcurrency === undefined) {
      throw new UsageError(
        "--duration: an infinite rate sends every request at once, without end; cap the requests in flight with --concurrency N, or give --requests N",
        "bench",
      );
    }
    if ((shape.rate * durationMs) / 1000 > MAX_SCHEDULED) {
      refuse(
        "duration",
        `with rate ${shape.rate}, must schedule at most ${MAX_SCHEDULED} requests`,
        values.duration,
      );
    }
  }
}
