import { type BenchSlo, parseSlo, ServeConfigError } from "@finetune-studio/serve-kit";
import {
  checkSessionHeader,
  type LoadStage,
  parseStages,
  stageBoundariesMs,
  stageRequests,
} from "@finetune-studio/serve-kit/internal";
import { type CommandArgs, positional } from "../shared/command-args.js";
import {
  API_KEY_ENV_FLAG,
  SLO_FLAG as COMMON_SLO_FLAG,
  JSON_FLAG,
  LAUNCH_FLAG,
  OUT_FLAG,
} from "../shared/common-flags.js";
import {
  countFlag,
  describedAs,
  type ParsedFlags,
  ruleFlag,
  secondsFlag,
  textFlag,
} from "../shared/flags.js";
import { UsageError } from "../shared/io.js";
import { SESSION_HEADER_FLAG } from "../shared/routing-flags.js";
import { positiveDecimal, refuse, wholeNumber } from "../shared/values.js";
import type { LoadShape } from "./run-load.js";

// The flags of `studio-serve bench`, each with its rule and default, checked before any request is sent.

/** The server to load, by its URL. */
export const URL_ARG = positional("URL", "e.g. http://127.0.0.1:8000 (or its /v1 base URL)");

export const CONCURRENCY_FLAG = countFlag("concurrency", {
  min: 1,
  max: 100_000,
  fallback: 1,
  help: "keep N requests open at once; with --rate, the most open at once,\narrivals waiting for a slot",
});
export const RATE_FLAG = ruleFlag(
  "rate",
  { valueName: "R", help: "send R requests per second, Poisson arrivals (inf: all at once)" },
  (text, flag) => positiveDecimal(text, flag, true),
);
export const STAGES_FLAG = ruleFlag(
  "stages",
  {
    valueName: "R1:D1,R2:D2,...",
    help: "a load that changes: R requests per second for D (s, m or h),\nstage after stage (e.g. 2:60s,12:120s,2:120s), sent as --rate sends;\nthe report adds a row per stage, --out a timeline (with --launch P:\nthe instances serving and the queue)",
  },
  (text, flag) => asUsage(() => parseStages(text, flag)),
);
export const BURSTINESS_FLAG = ruleFlag(
  "burstiness",
  { valueName: "B", help: "with --rate or --stages: gamma-distributed gaps, 1 = Poisson", fallback: 1 },
  (text, flag) => positiveDecimal(text, flag, true),
);
export const SEED_FLAG = countFlag("seed", {
  valueName: "S",
  min: 0,
  max: 2 ** 31 - 1,
  fallback: 0,
  help: "with --rate or --stages: the seed of the arrival times",
});
export const SWEEP_FLAG = textFlag("sweep", {
  valueName: "rate:1,4,inf | concurrency:1,4,16",
  help: "measure each load in turn; with --slo, find the highest one served",
});
export const REQUESTS_FLAG = countFlag("requests", {
  min: 1,
  max: 1_000_000,
  fallback: 100,
  help: "requests per load",
});
export const DURATION_FLAG = secondsFlag("duration", {
  min: 1,
  max: 86_400,
  help: "or: seconds per load",
});
export const LOAD_FLAGS = [
  CONCURRENCY_FLAG,
  RATE_FLAG,
  STAGES_FLAG,
  BURSTINESS_FLAG,
  SEED_FLAG,
  SWEEP_FLAG,
  REQUESTS_FLAG,
  DURATION_FLAG,
];

export const MODEL_FLAG = textFlag("model", {
  valueName: "M",
  help: "the served name to load (default: the first /v1/models lists)",
});
export const INPUT_TOKENS_FLAG = countFlag("input-tokens", {
  min: 1,
  max: 1_000_000,
  fallback: 256,
  help: "synthetic prompts of about N tokens",
});
export const OUTPUT_TOKENS_FLAG = countFlag("output-tokens", {
  min: 1,
  max: 1_000_000,
  fallback: 128,
  help: "exactly N output tokens each: max_tokens with ignore_eos",
});
export const DATASET_FLAG = textFlag("dataset", {
  valueName: "FILE.jsonl",
  help: "your own traffic instead: one chat request per line",
});
export const TIMEOUT_FLAG = secondsFlag("timeout", {
  min: 1,
  max: 86_400,
  fallback: 120,
  help: "seconds a request may go without a chunk",
});
export const REQUEST_FLAGS = [
  MODEL_FLAG,
  INPUT_TOKENS_FLAG,
  OUTPUT_TOKENS_FLAG,
  DATASET_FLAG,
  TIMEOUT_FLAG,
  API_KEY_ENV_FLAG,
];

export const CONVERSATIONS_FLAG = countFlag("conversations", {
  min: 1,
  max: 100_000,
  help: "play N multi-turn conversations instead (--concurrency of them at once):\na shared system prompt, each turn sent with the whole history, each answer\nappended to it, lengths skewed (many short, a few long)",
});
export const TURNS_FLAG = countFlag("turns", {
  valueName: "T",
  min: 1,
  max: 64,
  fallback: 4,
  help: "with --conversations: the mean user turns per conversation (at most 4 x T)",
});
const MAX_THINK_SECONDS = 3600;
export const THINK_TIME_FLAG = ruleFlag(
  "think-time",
  {
    valueName: "S",
    help: "with --conversations: wait S seconds on average (exponential) between an\nanswer and the conversation's next turn, as a person reads it; without it\nthe next turn follows at once, and a least-busy balancer tends to send it\nback to the instance it just left",
  },
  (text, flag) => {
    const seconds = positiveDecimal(text, flag);
    if (seconds > MAX_THINK_SECONDS) refuse(flag, `must be at most ${MAX_THINK_SECONDS}`, text);
    return seconds;
  },
);
export const CONTEXT_TOKENS_FLAG = countFlag("context-tokens", {
  min: 1,
  max: 1_000_000,
  help: "with --conversations: open each conversation with a context of its own of\nabout N tokens (a document, the user's data), which every later turn carries",
});
export const BENCH_SESSION_HEADER_FLAG = describedAs(
  SESSION_HEADER_FLAG,
  "with --conversations: send each conversation's id in header NAME, as\n`launch --routing session` reads it",
  "no header",
);
export const CONVERSATION_FLAGS = [
  CONVERSATIONS_FLAG,
  TURNS_FLAG,
  THINK_TIME_FLAG,
  CONTEXT_TOKENS_FLAG,
  BENCH_SESSION_HEADER_FLAG,
];

export const SLO_FLAG = describedAs(
  COMMON_SLO_FLAG,
  "a request is good when it meets each; goodput counts them",
);
export const ATTAINMENT_FLAG = ruleFlag(
  "attainment",
  { valueName: "F", help: "the share of good requests a load must reach to count as served", fallback: 0.95 },
  (text, flag) => {
    const share = positiveDecimal(text, flag);
    return share <= 1 ? share : refuse(flag, "must be a share from above 0 to 1", text);
  },
);
export const TARGET_RPS_FLAG = ruleFlag(
  "target-rps",
  { valueName: "R", help: "with a sweep: the instances (launch --instances, or replicaCount) R needs" },
  (text, flag) => positiveDecimal(text, flag),
);
export const SLO_FLAGS = [SLO_FLAG, ATTAINMENT_FLAG, TARGET_RPS_FLAG];

export const OUTPUT_FLAGS = [
  describedAs(JSON_FLAG, "one JSON document (stable field names) instead of the table"),
  describedAs(
    OUT_FLAG,
    "also write records.jsonl (one line per request), summary.json and, for a\nsweep, latency.svg (latency against load); for --stages, timeline.csv\nand timeline.svg (one row a second)",
  ),
];

export const BENCH_FLAGS = [
  LAUNCH_FLAG,
  ...LOAD_FLAGS,
  ...REQUEST_FLAGS,
  ...CONVERSATION_FLAGS,
  ...SLO_FLAGS,
  ...OUTPUT_FLAGS,
];

/** One load level of a run: its shape and how it is named in tables. */
export interface LoadLevel {
  load: number;
  label: string;
  shape: LoadShape;
}

export interface BenchRun {
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
  /** --conversations: the multi-turn workload instead of single requests. */
  conversations: Conversations | undefined;
  /** --stages: the load changes stage by stage (the one level's shape says so too). */
  stages: readonly LoadStage[] | undefined;
}

export interface Conversations {
  count: number;
  meanTurns: number;
  /** The mean wait between an answer and the next turn; 0: none. */
  thinkMs: number;
  /** Words of each conversation's own context; 0: none. */
  contextWords: number;
  /** The header each turn names its conversation in, or none. */
  sessionHeader: string | undefined;
}

/** `studio-serve bench`'s command line: the server, the flags, and the rules of how they go together. */
export const BENCH_ARGS: CommandArgs = {
  name: "bench",
  positionals: [URL_ARG],
  flags: BENCH_FLAGS,
  required: {
    args: [URL_ARG, LAUNCH_FLAG],
    exclusive: true,
    missing: "name the server to load, e.g. http://127.0.0.1:8000, or --launch P",
  },
  oneOf: [
    { flags: [RATE_FLAG, SWEEP_FLAG], what: " way to offer the load" },
    { flags: [REQUESTS_FLAG, DURATION_FLAG], what: " way to end a run" },
  ],
  needs: [
    { flag: TARGET_RPS_FLAG, needs: SLO_FLAG, why: "which says what serving the traffic means" },
    ...CONVERSATION_FLAGS.filter((flag) => flag !== CONVERSATIONS_FLAG).map((flag) => ({
      flag,
      needs: CONVERSATIONS_FLAG,
    })),
  ],
  excludes: [
    {
      flags: [RATE_FLAG, CONCURRENCY_FLAG, SWEEP_FLAG, REQUESTS_FLAG, DURATION_FLAG, CONVERSATIONS_FLAG],
      by: STAGES_FLAG,
      why: "which sets the rate and how long it lasts, stage by stage, sent open-loop as --rate sends",
    },
    {
      flags: [RATE_FLAG, SWEEP_FLAG, REQUESTS_FLAG, DURATION_FLAG, DATASET_FLAG],
      by: CONVERSATIONS_FLAG,
      why: "which plays each conversation to its end, --concurrency at a time",
    },
  ],
};

/**
 * Reads the load flags: --rate, --concurrency or --sweep (default: one request at a time); --concurrency
 * with --rate or a rate sweep caps the requests in flight (see `maxConcurrencyOf`). The rules of BENCH_ARGS
 * were checked when the command line was parsed.
 */
export function readBenchRun(parsed: ParsedFlags): BenchRun {
  const { levels, loadName } = levelsOf(parsed);
  const duration = parsed.get(DURATION_FLAG);
  const durationMs = duration === undefined ? undefined : duration * 1000;
  if (durationMs !== undefined) checkRateForDuration(levels, durationMs, String(duration));
  const targetRps = parsed.get(TARGET_RPS_FLAG);
  const stages = parsed.get(STAGES_FLAG);
  return {
    levels,
    loadName,
    stages,
    conversations: readConversations(parsed),
    requests: parsed.get(REQUESTS_FLAG),
    durationMs,
    inputTokens: parsed.get(INPUT_TOKENS_FLAG),
    outputTokens: parsed.get(OUTPUT_TOKENS_FLAG),
    slo: sloOf(parsed),
    attainment: parsed.get(ATTAINMENT_FLAG),
    targetRps,
    timeoutMs: parsed.get(TIMEOUT_FLAG) * 1000,
  };
}

/** The load levels: one --rate, each of --sweep's, or one --concurrency. */
function levelsOf(parsed: ParsedFlags): Pick<BenchRun, "levels" | "loadName"> {
  const maxConcurrency = maxConcurrencyOf(parsed);
  const burstiness = parsed.get(BURSTINESS_FLAG);
  const seed = parsed.get(SEED_FLAG);
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
  const rate = parsed.get(RATE_FLAG);
  const sweep = parsed.get(SWEEP_FLAG);
  const stages = parsed.get(STAGES_FLAG);
  if (stages !== undefined) {
    const level = stagesLevel(stages, burstiness, seed);
    return { levels: [level], loadName: "request rate (req/s)" };
  }
  if (rate !== undefined) return { levels: [rateLevel(rate)], loadName: "request rate (req/s)" };
  if (sweep === undefined)
    return { levels: [concurrencyLevel(parsed.get(CONCURRENCY_FLAG))], loadName: "concurrency" };
  const match = /^(rate|concurrency):(.+)$/.exec(sweep);
  if (match === null) refuse("--sweep", "must be rate:R1,R2,... or concurrency:N1,N2,...", sweep);
  const [, kind, list] = match as unknown as [string, "rate" | "concurrency", string];
  const loads = list.split(",");
  if (loads.length > 32) refuse("--sweep", "must list at most 32 loads", sweep);
  return kind === "rate"
    ? {
        levels: loads.map((text) => rateLevel(positiveDecimal(text, "--sweep", true))),
        loadName: "request rate (req/s)",
      }
    : {
        levels: loads.map((text) => concurrencyLevel(wholeNumber(text, "--sweep", 1, 100_000))),
        loadName: "concurrency",
      };
}

/**
 * --stages' one level: its schedule sent open-loop, as a rate's is; its load the mean rate offered (its
 * requests over its seconds), its label the stages as the table names them.
 */
function stagesLevel(stages: readonly LoadStage[], burstiness: number, seed: number): LoadLevel {
  const requests = stages.reduce((sum, stage) => sum + stageRequests(stage), 0);
  const seconds = (stageBoundariesMs(stages).at(-1) ?? 0) / 1000;
  const text = stages.map((stage) => `${stage.rate}:${stage.durationMs / 1000}s`).join(",");
  return {
    load: requests / seconds,
    label: `stages ${text}`,
    shape: { kind: "stages", stages, burstiness, seed },
  };
}

/** --slo by serve-kit's parser, its error told as the flag. */
function sloOf(parsed: ParsedFlags): BenchSlo | undefined {
  const text = parsed.get(SLO_FLAG);
  return text === undefined ? undefined : asUsage(() => parseSlo(text, "--slo"));
}

/** A serve-kit parser's refusal (it names the flag, its rule and what was given) as a usage error. */
function asUsage<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof ServeConfigError)
      throw new UsageError(`${error.field}: ${error.rule} (given ${error.given})`);
    throw error;
  }
}

// --concurrency beside --rate or a rate sweep, as vLLM's `--max-concurrency` beside its
// `--request-rate`: the rate schedules the arrivals, the concurrency caps the requests in flight.

/** The cap on requests in flight for rate levels, or undefined when --concurrency sets the load itself. */
function maxConcurrencyOf(parsed: ParsedFlags): number | undefined {
  if (!parsed.given(CONCURRENCY_FLAG)) return undefined;
  const sweep = parsed.get(SWEEP_FLAG);
  const rates = parsed.given(RATE_FLAG) || (sweep ?? "").startsWith("rate:");
  if (sweep !== undefined && !rates) {
    throw new UsageError("--concurrency and --sweep concurrency:...: give one way to offer the load");
  }
  return rates ? parsed.get(CONCURRENCY_FLAG) : undefined;
}

/** The most requests one level of a --duration run may schedule: the bound on --requests. */
const MAX_SCHEDULED = 1_000_000;

/** --duration with a rate: a finite rate schedules rate × duration requests; an infinite one needs a cap. */
function checkRateForDuration(levels: readonly LoadLevel[], durationMs: number, given: unknown): void {
  for (const { shape } of levels) {
    if (shape.kind !== "rate") continue;
    if (shape.rate === Number.POSITIVE_INFINITY && shape.maxConcurrency === undefined) {
      throw new UsageError(
        "--duration: an infinite rate sends every request at once, without end; cap the requests in flight with --concurrency N, or give --requests N",
      );
    }
    if ((shape.rate * durationMs) / 1000 > MAX_SCHEDULED) {
      refuse("--duration", `with rate ${shape.rate}, must schedule at most ${MAX_SCHEDULED} requests`, given);
    }
  }
}

/** The most words of context a run makes (--conversations x --context-tokens): the workload is held in memory. */
const MAX_CONTEXT_WORDS = 10_000_000;

/**
 * --conversations N [--turns T] [--think-time S] [--context-tokens N] [--session-header NAME]: one level of
 * --concurrency conversations at once, each played to its end, so --rate, --sweep, --requests, --duration
 * and --dataset do not apply.
 */
function readConversations(parsed: ParsedFlags): Conversations | undefined {
  const count = parsed.get(CONVERSATIONS_FLAG);
  if (count === undefined) return undefined;
  const header = parsed.get(BENCH_SESSION_HEADER_FLAG);
  const contextWords = parsed.get(CONTEXT_TOKENS_FLAG) ?? 0;
  if (count * contextWords > MAX_CONTEXT_WORDS) {
    refuse(
      "--context-tokens",
      `with --conversations ${count}, must be at most ${Math.floor(MAX_CONTEXT_WORDS / count)} (${MAX_CONTEXT_WORDS} in all, held in memory)`,
      String(contextWords),
    );
  }
  return {
    count,
    meanTurns: parsed.get(TURNS_FLAG),
    thinkMs: (parsed.get(THINK_TIME_FLAG) ?? 0) * 1000,
    contextWords,
    sessionHeader: header === undefined ? undefined : checkSessionHeader(header, "sessionHeader"),
  };
}
