import { createChatClient } from "@finetune-studio/client";
import { type BenchResult, reportBench, sizesCapacity } from "../bench/bench-output.js";
import { type BenchTarget, measureConversations, measureLevels } from "../bench/measure-levels.js";
import { measureStages } from "../bench/measure-stages.js";
import { measuredFleet, ONE_INSTANCE } from "../bench/measured-fleet.js";
import {
  BENCH_ARGS,
  BENCH_FLAGS,
  type BenchRun,
  CONVERSATION_FLAGS,
  DATASET_FLAG,
  LOAD_FLAGS,
  MODEL_FLAG,
  OUTPUT_FLAGS,
  REQUEST_FLAGS,
  readBenchRun,
  SLO_FLAGS,
} from "../bench/options.js";
import { instanceUrls, prefixCacheOfRun, readInstances } from "../bench/prefix-cache.js";
import { datasetRequests, syntheticRequests } from "../bench/prompts.js";
import { unreachableLevels } from "../bench/report.js";
import { servedModel } from "../bench/served-model.js";
import { readApiKey } from "../shared/api-key.js";
import { parseCommand, synopsisOf, usageLines } from "../shared/command-args.js";
import { API_KEY_ENV_FLAG, JSON_FLAG, LAUNCH_FLAG, OUT_FLAG } from "../shared/common-flags.js";
import { ExitCode, exitCodeHelp } from "../shared/exit-codes.js";
import { flagHelp, type ParsedFlags } from "../shared/flags.js";
import { untilInterrupted } from "../shared/interrupt.js";
import type { CliIo } from "../shared/io.js";
import { serverUrl } from "../shared/values.js";
import type { CliCommand } from "./command-type.js";

/** A bench as its flags ask for it, read (and checked) before any request is sent. */
interface BenchAsked {
  url: string;
  launch: number | undefined;
  plan: BenchRun;
  apiKey: string | undefined;
  model: string | undefined;
  dataset: string | undefined;
  json: boolean;
  out: string | undefined;
}

/** `studio-serve bench URL | --launch P`: load a served model and read its latency, as vLLM's bench does. */
async function runBench(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseCommand(args, BENCH_ARGS);
  if (parsed.help) {
    io.out(HELP);
    return ExitCode.Ok;
  }
  const asked = readBench(parsed, io);
  const { url, apiKey } = asked;
  const chat = createChatClient({ baseUrl: url, maxRetries: 0, ...(apiKey === undefined ? {} : { apiKey }) });
  const model = await servedModel(chat, url, asked.model, io);
  if (typeof model === "number") return model;
  // What a sweep's capacity measures, as the launch records it: through a fleet's front door, the fleet.
  const fleet = sizesCapacity(asked.plan) ? await measuredFleet(url, asked.launch, io) : ONE_INSTANCE;
  const onInterrupt = () => io.err("\nstudio-serve: stopping the run; what was measured is kept\n");
  const run = await untilInterrupted(
    (signal) => measure(asked, { url, model, apiKey, chat, signal }, io),
    onInterrupt,
  );
  return reportBench({ ...run, plan: asked.plan, url, model, fleet, json: asked.json, out: asked.out }, io);
}

/** Every flag, read by its declaration; the warnings a plan earns before it runs. */
function readBench(parsed: ParsedFlags, io: CliIo): BenchAsked {
  const launch = parsed.get(LAUNCH_FLAG);
  const url = targetUrl(parsed.positionals, launch);
  const plan = readBenchRun(parsed);
  const apiKey = readApiKey(parsed.get(API_KEY_ENV_FLAG), io.env);
  const single = plan.durationMs === undefined && plan.conversations === undefined;
  for (const warning of unreachableLevels(single ? plan.levels : [], plan.requests)) {
    io.err(`studio-serve: warning: ${warning}\n`);
  }
  return {
    url,
    launch,
    plan,
    apiKey,
    model: parsed.get(MODEL_FLAG),
    dataset: parsed.get(DATASET_FLAG),
    json: parsed.get(JSON_FLAG),
    out: parsed.get(OUT_FLAG),
  };
}

/** The run: each load level, or the conversations with the prefix-cache counters read around them. */
async function measure(
  asked: BenchAsked,
  target: BenchTarget,
  io: CliIo,
): Promise<Pick<BenchResult, "measured" | "interrupted" | "prefixCache" | "staged">> {
  const { plan } = asked;
  if (plan.conversations === undefined) {
    const requests =
      asked.dataset === undefined
        ? syntheticRequests(target.model, plan.requests, plan.inputTokens, plan.outputTokens)
        : datasetRequests(asked.dataset, target.model);
    if (plan.stages !== undefined) {
      const { measured, staged } = await measureStages(plan, requests, target, asked.launch, io);
      return { measured: [measured], interrupted: target.signal.aborted, prefixCache: undefined, staged };
    }
    const measured = await measureLevels(plan, requests, target, io);
    return { measured, interrupted: target.signal.aborted, prefixCache: undefined, staged: undefined };
  }
  // The instances' prefix-cache counters before and after the run: what it made the caches do.
  const urls = await instanceUrls(target.url, asked.launch, io);
  const before = await readInstances(urls, target.apiKey);
  const measured = [await measureConversations(plan, plan.conversations, target, io)];
  const after = await readInstances(urls, target.apiKey, before.scrapes);
  const prefixCache = prefixCacheOfRun(before.scrapes, after.statuses);
  return { measured, interrupted: target.signal.aborted, prefixCache, staged: undefined };
}

/** The server: the launch's front door on this machine, or the URL given (the parser saw one of them). */
function targetUrl(positionals: readonly string[], launch: number | undefined): string {
  return launch === undefined ? serverUrl(positionals[0] ?? "", "URL") : `http://127.0.0.1:${launch}`;
}

const HELP = `studio-serve bench: load a served model through its chat API and read its latency, as vLLM's own
benchmark defines it, and how many instances a traffic needs.

${usageLines(BENCH_ARGS)}

Load (--concurrency, --rate, --stages or --sweep; --concurrency with a rate caps the requests open):
${flagHelp(LOAD_FLAGS)}

Requests:
${flagHelp(REQUEST_FLAGS)}

Conversations (for a front door that routes for vLLM's prefix cache, launch --routing):
${flagHelp(CONVERSATION_FLAGS)}
  The system prompt is about --input-tokens words, each user turn 32. The run reports the
  prefix-cache hit rate the instances counted (vLLM's /metrics read before and after; with --launch P
  its instances, with a URL that URL's, or a launch's instances behind its front door).

Service levels and capacity:
${flagHelp(SLO_FLAGS)}

Output:
${flagHelp(OUTPUT_FLAGS)}

Token counts come from the server's usage (stream_options.include_usage). TTFT, TPOT, ITL and
end-to-end latency follow vllm bench serve. Ctrl-C ends the run and still reports what was measured.
The bench warns when this machine, not the server, could not keep the schedule.

${exitCodeHelp("bench")}
`;

export const bench: CliCommand = {
  name: "bench",
  synopsis: [synopsisOf(BENCH_ARGS, "measure latency and capacity")],
  help: HELP,
  flags: BENCH_FLAGS,
  run: runBench,
};
