import { join } from "node:path";
import { type ChatClient, createChatClient, StudioAuthError } from "@finetune-studio/client";
import { escapeForTerminal, jsonForTerminal } from "@finetune-studio/internal";
import {
  type BenchRequestRecord,
  capacityFromSweep,
  computeBenchMetrics,
  conversationWorkload,
  latencyChartSvg,
  type SweepPoint,
} from "@finetune-studio/serve-kit";
import { type MeasuredFleet, measuredFleet, ONE_INSTANCE } from "../bench/measured-fleet.js";
import {
  BENCH_FLAGS,
  type BenchRun,
  CONVERSATION_FLAGS,
  type Conversations,
  DATASET_FLAG,
  LOAD_FLAGS,
  type LoadLevel,
  MODEL_FLAG,
  OUTPUT_FLAGS,
  REQUEST_FLAGS,
  readBenchRun,
  SLO_FLAGS,
} from "../bench/options.js";
import { playConversations } from "../bench/play-conversations.js";
import {
  instanceUrls,
  type PrefixCacheResult,
  prefixCacheOfRun,
  readInstances,
} from "../bench/prefix-cache.js";
import { datasetRequests, syntheticRequests } from "../bench/prompts.js";
import {
  formatBenchTable,
  formatCapacity,
  formatFailureReasons,
  formatPrefixCache,
  levelLabel,
  loadText,
  unreachableLevels,
} from "../bench/report.js";
import { LATE_MS, type LoadRun, runLoad } from "../bench/run-load.js";
import { readApiKey } from "../shared/api-key.js";
import { API_KEY_ENV_FLAG, JSON_FLAG, LAUNCH_FLAG, OUT_FLAG } from "../shared/common-flags.js";
import { ExitCode } from "../shared/exit-codes.js";
import { flagHelp, parseFlags } from "../shared/flags.js";
import { type CliIo, UsageError } from "../shared/io.js";
import { messageOf } from "../shared/messages.js";
import { FileWriteError, writeFilesTogether } from "../shared/safe-files.js";
import { quoted, serverUrl } from "../shared/values.js";
import type { CliCommand } from "./command-type.js";

/**
 * One level measured: its load (a concurrency level's is the concurrency it reached), the load asked for,
 * its metrics, its records and how far the generator fell behind.
 */
interface Measured extends SweepPoint {
  label: string;
  asked: number;
  reachedConcurrency: number;
  records: BenchRequestRecord[];
  late: LoadRun["late"];
}

/** `studio-serve bench URL | --launch P`: load a served model and read its latency, as vLLM's bench does. */
async function runBench(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseFlags(args, BENCH_FLAGS);
  if (parsed.help) {
    io.out(HELP);
    return ExitCode.Ok;
  }
  const url = targetUrl(parsed.positionals, parsed.get(LAUNCH_FLAG));
  const plan = readBenchRun(parsed);
  const apiKey = readApiKey(parsed.get(API_KEY_ENV_FLAG), io.env);
  const dataset = parsed.get(DATASET_FLAG);
  for (const warning of unreachableLevels(
    plan.durationMs === undefined && plan.conversations === undefined ? plan.levels : [],
    plan.requests,
  )) {
    io.err(`studio-serve: warning: ${warning}\n`);
  }
  const chat = createChatClient({ baseUrl: url, maxRetries: 0, ...(apiKey === undefined ? {} : { apiKey }) });
  const model = await servedModel(chat, url, parsed.get(MODEL_FLAG), io);
  if (typeof model === "number") return model;
  const requests =
    dataset === undefined
      ? syntheticRequests(model, plan.requests, plan.inputTokens, plan.outputTokens)
      : datasetRequests(dataset, model);
  // What a sweep's capacity measures, as the launch records it: through a fleet's front door, the fleet.
  const sizing = plan.slo !== undefined && plan.levels.length > 1;
  const fleet = sizing ? await measuredFleet(url, parsed.get(LAUNCH_FLAG), io) : ONE_INSTANCE;

  const stop = new AbortController();
  const onSignal = () => {
    io.err("\nstudio-serve: stopping the run; what was measured is kept\n");
    stop.abort();
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const measured: Measured[] = [];
  let prefixCache: PrefixCacheResult | undefined;
  try {
    if (plan.conversations !== undefined) {
      // The instances' prefix-cache counters before and after the run: what it made the caches do.
      const urls = await instanceUrls(url, parsed.get(LAUNCH_FLAG), io);
      const before = await readInstances(urls, apiKey);
      const conversations = plan.conversations;
      const asked = plan.levels[0] as LoadLevel;
      const thinking = conversations.thinkMs > 0 ? `, ${conversations.thinkMs / 1000} s think time` : "";
      const level = {
        ...asked,
        label: `${conversations.count} conversations, ${asked.load} at once${thinking}`,
      };
      const chatFor = sessionChats(url, apiKey, conversations);
      measured.push(
        await measureLevel(level, plan, io, (onRecord) =>
          playConversations({
            workload: workloadOf(conversations, plan),
            model,
            concurrency: level.load,
            thinkMs: conversations.thinkMs,
            outputTokens: plan.outputTokens,
            chatFor,
            timeoutMs: plan.timeoutMs,
            signal: stop.signal,
            secrets: apiKey === undefined ? [] : [apiKey],
            onRecord,
          }),
        ),
      );
      prefixCache = prefixCacheOfRun(
        before.scrapes,
        (await readInstances(urls, apiKey, before.scrapes)).statuses,
      );
    } else {
      for (const level of plan.levels) {
        if (stop.signal.aborted) break;
        measured.push(
          await measureLevel(level, plan, io, (onRecord) =>
            runLoad({
              chat,
              requests,
              count: countOf(level, plan),
              ...(plan.durationMs === undefined ? {} : { durationMs: plan.durationMs }),
              shape: level.shape,
              timeoutMs: plan.timeoutMs,
              signal: stop.signal,
              secrets: apiKey === undefined ? [] : [apiKey],
              onRecord,
            }),
          ),
        );
      }
    }
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  const output = { json: parsed.get(JSON_FLAG), out: parsed.get(OUT_FLAG) };
  return report(measured, plan, { url, model, fleet }, output, io, stop.signal.aborted, prefixCache);
}

function targetUrl(positionals: readonly string[], launch: number | undefined): string {
  if (launch !== undefined && positionals.length > 0) {
    throw new UsageError("give a server URL or --launch P, not both");
  }
  if (launch !== undefined) return `http://127.0.0.1:${launch}`;
  if (positionals.length !== 1) {
    throw new UsageError("name the server to load, e.g. http://127.0.0.1:8000, or --launch P");
  }
  return serverUrl(positionals[0] ?? "", "URL");
}

/** The model to load: --model when the server serves it, else the first it lists. */
async function servedModel(chat: ChatClient, url: string, asked: string | undefined, io: CliIo) {
  let ids: string[];
  try {
    if (!(await chat.health({ timeoutMs: 10_000 }))) {
      io.err(`studio-serve: ${url} does not answer /health (stopped, or still loading its weights)\n`);
      return ExitCode.Failure;
    }
    ids = (await chat.listModels({ timeoutMs: 10_000 })).data.map((entry) => entry.id);
  } catch (error) {
    const hint = error instanceof StudioAuthError ? ": give the server's key with --api-key-env NAME" : "";
    io.err(`studio-serve: cannot read ${url}/v1/models: ${messageOf(error)}${hint}\n`);
    return ExitCode.Failure;
  }
  if (asked !== undefined && !ids.includes(asked)) {
    io.err(
      `studio-serve: --model: ${url} does not serve ${escapeForTerminal(quoted(asked))}; it serves ${escapeForTerminal(ids.join(", ") || "nothing")}\n`,
    );
    return ExitCode.Failure;
  }
  const model = asked ?? ids[0];
  if (model === undefined) {
    io.err(`studio-serve: ${url}/v1/models lists no model\n`);
    return ExitCode.Failure;
  }
  return model;
}

/** The requests one level sends: --requests, or as many as --duration takes at its rate. */
function countOf(level: LoadLevel, plan: BenchRun): number {
  if (plan.durationMs === undefined) return plan.requests;
  return level.shape.kind === "rate" && Number.isFinite(level.shape.rate)
    ? Math.ceil((level.shape.rate * plan.durationMs) / 1000)
    : 1_000_000_000;
}

/**
 * The conversations: a shared system prompt of about --input-tokens words (one common word is about one
 * token), then each conversation's own context of --context-tokens words, user turns of 32 words, geometric
 * lengths with mean --turns, at most 4 times it.
 */
function workloadOf(conversations: Conversations, plan: BenchRun) {
  return conversationWorkload({
    sessions: conversations.count,
    meanTurns: conversations.meanTurns,
    maxTurns: conversations.meanTurns * 4,
    systemPromptWords: plan.inputTokens,
    contextWords: conversations.contextWords,
    userWords: 32,
  });
}

/** A conversation's client: one that sends its id in the session header, or the same for every one. */
function sessionChats(url: string, apiKey: string | undefined, conversations: Conversations) {
  const base = { baseUrl: url, maxRetries: 0, ...(apiKey === undefined ? {} : { apiKey }) };
  const shared = createChatClient(base);
  const header = conversations.sessionHeader;
  return (session: string) =>
    header === undefined ? shared : createChatClient({ ...base, headers: { [header]: session } });
}

async function measureLevel(
  level: LoadLevel,
  plan: BenchRun,
  io: CliIo,
  send: (onRecord: (records: readonly BenchRequestRecord[]) => void) => Promise<LoadRun>,
): Promise<Measured> {
  const progress = progressLine(level.label, io);
  const run = await send(progress.update);
  progress.done();
  const metrics = computeBenchMetrics(run.records, run.durationSeconds, plan.slo);
  if (run.late.count > run.records.length * 0.05) {
    io.err(
      `studio-serve: warning: ${level.label}: the load generator fell behind its schedule (${run.late.count} of ${run.records.length} requests sent more than ${LATE_MS} ms late, the worst ${Math.round(run.late.worstMs)} ms): this machine, not the server, set the pace\n`,
    );
  }
  const reached = run.reachedConcurrency;
  return {
    label: levelLabel(level.label, level.shape, reached),
    load: level.shape.kind === "concurrency" ? Math.min(level.load, reached) : level.load,
    asked: level.load,
    reachedConcurrency: reached,
    metrics,
    records: run.records,
    late: run.late,
  };
}

/** A live line on stderr: requests done, failed, the rate so far and p50 TTFT, at most once a second. */
function progressLine(label: string, io: CliIo) {
  const started = performance.now();
  let shown = started;
  const tty = process.stderr.isTTY === true;
  const line = (records: readonly BenchRequestRecord[]) => {
    const seconds = (performance.now() - started) / 1000;
    const ok = records.filter((record) => record.ok);
    const ttft = [...ok.map((record) => record.ttftMs)].sort((a, b) => a - b)[Math.floor(ok.length / 2)];
    return `bench: ${label}: ${records.length} done, ${records.length - ok.length} failed, ${(records.length / Math.max(seconds, 1e-3)).toFixed(1)} req/s, TTFT p50 ${ttft === undefined ? "-" : `${Math.round(ttft)} ms`}`;
  };
  let last: readonly BenchRequestRecord[] = [];
  return {
    update(records: readonly BenchRequestRecord[]) {
      last = records;
      const now = performance.now();
      if (now - shown < (tty ? 1000 : 5000)) return;
      shown = now;
      io.err(tty ? `\r${line(records)}\u001b[K` : `${line(records)}\n`);
    },
    done() {
      io.err(tty ? `\r${line(last)}\u001b[K\n` : `${line(last)}\n`);
    },
  };
}

function report(
  measured: readonly Measured[],
  plan: BenchRun,
  target: { url: string; model: string; fleet: MeasuredFleet },
  output: { json: boolean; out: string | undefined },
  io: CliIo,
  interrupted: boolean,
  prefixCache: PrefixCacheResult | undefined,
): number {
  const capacity =
    plan.slo !== undefined && measured.length > 1
      ? capacityFromSweep(measured, {
          attainment: plan.attainment,
          instances: target.fleet.instances,
          ...(plan.targetRps === undefined ? {} : { targetRps: plan.targetRps }),
        })
      : undefined;
  const document = {
    url: target.url,
    model: target.model,
    loadName: plan.loadName,
    slo: plan.slo ?? null,
    interrupted,
    ...(prefixCache === undefined ? {} : { prefixCache }),
    levels: measured.map(({ label, asked, reachedConcurrency, metrics, late }) => ({
      label,
      load: loadText(asked),
      reachedConcurrency,
      metrics,
      generatorLate: late,
    })),
    capacity:
      capacity === undefined
        ? null
        : {
            ...capacity,
            highestLoad: capacity.highestLoad === null ? null : loadText(capacity.highestLoad),
            firstFailingLoad: capacity.firstFailingLoad === null ? null : loadText(capacity.firstFailingLoad),
          },
  };
  if (output.json) io.out(`${jsonForTerminal(document, 2)}\n`);
  else {
    io.out(formatBenchTable(measured));
    io.out(formatFailureReasons(measured));
    if (prefixCache !== undefined) io.out(formatPrefixCache(prefixCache));
    if (capacity !== undefined)
      io.out(formatCapacity(capacity, plan.loadName, plan.targetRps, target.fleet.name));
  }
  if (output.out !== undefined) {
    const written = writeResults(output.out, measured, document, plan.loadName, io);
    if (written !== undefined) return written;
  }
  if (interrupted) return 130;
  return measured.some((level) => level.metrics.completed > 0) ? ExitCode.Ok : ExitCode.Failure;
}

/** --out DIR: the per-request records, the summary and, for a sweep, the chart; all or none. */
function writeResults(
  dir: string,
  measured: readonly Measured[],
  document: object,
  loadName: string,
  io: CliIo,
): number | undefined {
  const records = measured.flatMap((level) =>
    level.records.map((record) => JSON.stringify({ load: loadText(level.asked), ...record })),
  );
  const files = [
    { name: "records.jsonl", text: records.length === 0 ? "" : `${records.join("\n")}\n` },
    { name: "summary.json", text: `${JSON.stringify(document, null, 2)}\n` },
    ...(measured.length > 1 ? [{ name: "latency.svg", text: latencyChartSvg(measured, loadName) }] : []),
  ];
  try {
    writeFilesTogether(dir, files, "shared"); // Results, no secret: others may read them.
  } catch (error) {
    if (!(error instanceof FileWriteError)) throw error;
    io.err(`studio-serve: --out: ${escapeForTerminal(error.message)}\n`);
    return ExitCode.Failure;
  }
  io.err(`studio-serve: wrote ${files.map((file) => join(dir, file.name)).join(", ")}\n`);
  return undefined;
}

const HELP = `studio-serve bench: load a served model through its chat API and read its latency, as vLLM's own
benchmark defines it, and how many instances a traffic needs.

Usage:
  studio-serve bench URL [options]          e.g. http://127.0.0.1:8000 (or its /v1 base URL)
  studio-serve bench --launch P [options]   the launch serving on port P of this machine

Load (--concurrency, --rate or --sweep; --concurrency with a rate caps the requests in flight):
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
end-to-end latency follow vllm bench serve. Ctrl-C ends the run and still reports what was measured
(exit 130). The bench warns when this machine, not the server, could not keep the schedule.
`;

export const bench: CliCommand = {
  name: "bench",
  synopsis: [["bench URL|--launch P [--rate R|--concurrency N|--sweep ...]", "measure latency and capacity"]],
  help: HELP,
  flags: BENCH_FLAGS,
  run: runBench,
};
