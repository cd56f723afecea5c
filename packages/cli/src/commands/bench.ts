import { join } from "node:path";
import { type ChatClient, createChatClient, StudioAuthError } from "@finetune-studio/client";
import { escapeForTerminal, jsonForTerminal } from "@finetune-studio/internal";
import {
  type BenchRequestRecord,
  capacityFromSweep,
  computeBenchMetrics,
  latencyChartSvg,
  type SweepPoint,
} from "@finetune-studio/serve-kit";
import { BENCH_OPTIONS, type BenchPlan, type LoadLevel, planBench } from "../bench/options.js";
import { datasetRequests, syntheticRequests } from "../bench/prompts.js";
import {
  formatBenchTable,
  formatCapacity,
  formatFailureReasons,
  levelLabel,
  loadText,
  unreachableLevels,
} from "../bench/report.js";
import { LATE_MS, type LoadRun, runLoad } from "../bench/run-load.js";
import { ExitCode } from "../shared/exit-codes.js";
import { type CliIo, UsageError } from "../shared/io.js";
import { FileWriteError, writeFilesTogether } from "../shared/safe-files.js";
import { parseCommandLine } from "../shared/serve-args.js";
import type { CliCommand } from "./command-type.js";
import { controlPort } from "./reload.js";
import { checkServerUrl, readApiKey } from "./status.js";

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
  const { values, positionals } = parseCommandLine("bench", args, BENCH_OPTIONS);
  if (values.help === true) {
    io.out(HELP);
    return ExitCode.Ok;
  }
  const url = targetUrl(positionals, values.launch as string | undefined);
  const plan = planBench(values);
  const apiKey = readApiKey(values["api-key-env"] as string | undefined, io.env, "bench");
  for (const warning of unreachableLevels(plan.durationMs === undefined ? plan.levels : [], plan.requests)) {
    io.err(`studio-serve: warning: ${warning}\n`);
  }
  const chat = createChatClient({ baseUrl: url, maxRetries: 0, ...(apiKey === undefined ? {} : { apiKey }) });
  const model = await servedModel(chat, url, values.model as string | undefined, io);
  if (typeof model === "number") return model;
  const requests =
    values.dataset === undefined
      ? syntheticRequests(model, plan.requests, plan.inputTokens, plan.outputTokens)
      : datasetRequests(String(values.dataset), model);

  const stop = new AbortController();
  const onSignal = () => {
    io.err("\nstudio-serve: stopping the run; what was measured is kept\n");
    stop.abort();
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const measured: Measured[] = [];
  try {
    for (const level of plan.levels) {
      if (stop.signal.aborted) break;
      measured.push(await measureLevel(chat, requests, level, plan, stop.signal, io, apiKey));
    }
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  return report(measured, plan, { url, model }, values, io, stop.signal.aborted);
}

function targetUrl(positionals: readonly string[], launch: string | undefined): string {
  if (launch !== undefined && positionals.length > 0) {
    throw new UsageError("give a server URL or --launch P, not both", "bench");
  }
  if (launch !== undefined) return `http://127.0.0.1:${controlPort(launch, "bench")}`;
  if (positionals.length !== 1) {
    throw new UsageError("name the server to load, e.g. http://127.0.0.1:8000, or --launch P", "bench");
  }
  return checkServerUrl(positionals[0] ?? "", 0);
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
    io.err(`studio-serve: cannot read ${url}/v1/models: ${escapeForTerminal(messageOf(error))}${hint}\n`);
    return ExitCode.Failure;
  }
  if (asked !== undefined && !ids.includes(asked)) {
    io.err(
      `studio-serve: --model: ${url} does not serve ${JSON.stringify(escapeForTerminal(asked))}; it serves ${escapeForTerminal(ids.join(", ") || "nothing")}\n`,
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

async function measureLevel(
  chat: ChatClient,
  requests: Parameters<typeof runLoad>[0]["requests"],
  level: LoadLevel,
  plan: BenchPlan,
  signal: AbortSignal,
  io: CliIo,
  apiKey: string | undefined,
): Promise<Measured> {
  const count =
    plan.durationMs === undefined
      ? plan.requests
      : level.shape.kind === "rate" && Number.isFinite(level.shape.rate)
        ? Math.ceil((level.shape.rate * plan.durationMs) / 1000)
        : 1_000_000_000;
  const progress = progressLine(level.label, io);
  const run = await runLoad({
    chat,
    requests,
    count,
    ...(plan.durationMs === undefined ? {} : { durationMs: plan.durationMs }),
    shape: level.shape,
    timeoutMs: plan.timeoutMs,
    signal,
    secrets: apiKey === undefined ? [] : [apiKey],
    onRecord: progress.update,
  });
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
  plan: BenchPlan,
  target: { url: string; model: string },
  values: Record<string, unknown>,
  io: CliIo,
  interrupted: boolean,
): number {
  const capacity =
    plan.slo !== undefined && measured.length > 1
      ? capacityFromSweep(measured, {
          attainment: plan.attainment,
          ...(plan.targetRps === undefined ? {} : { targetRps: plan.targetRps }),
        })
      : undefined;
  const document = {
    url: target.url,
    model: target.model,
    loadName: plan.loadName,
    slo: plan.slo ?? null,
    interrupted,
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
  if (values.json === true) io.out(`${jsonForTerminal(document, 2)}\n`);
  else {
    io.out(formatBenchTable(measured));
    io.out(formatFailureReasons(measured));
    if (capacity !== undefined) io.out(formatCapacity(capacity, plan.loadName, plan.targetRps));
  }
  if (values.out !== undefined) {
    const written = writeResults(String(values.out), measured, document, plan.loadName, io);
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

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const HELP = `studio-serve bench: load a served model through its chat API and read its latency, as vLLM's own
benchmark defines it, and how many instances a traffic needs.

Usage:
  studio-serve bench URL [options]          e.g. http://127.0.0.1:8000
  studio-serve bench --launch P [options]   the launch serving on port P of this machine

Load (one of):
  --concurrency N           keep N requests open at once (default 1)
  --rate R                  send R requests per second, Poisson arrivals (inf: all at once)
                            [--burstiness B: gamma-distributed gaps, 1 = Poisson] [--seed S]
                            [--concurrency N: at most N open at once; arrivals wait for a slot]
  --sweep rate:1,4,inf | concurrency:1,4,16
                            measure each load in turn; with --slo, find the highest one served
  --requests N              requests per load (default 100), or --duration S seconds per load

Requests:
  --model M                 the served name to load (default: the first /v1/models lists)
  --input-tokens N          synthetic prompts of about N tokens (default 256)
  --output-tokens N         exactly N output tokens each: max_tokens with ignore_eos (default 128)
  --dataset FILE.jsonl      your own traffic instead: one chat request per line
  --timeout S               seconds a request may go without a chunk (default 120)
  --api-key-env NAME        the server's key (default: VLLM_API_KEY)

Service levels and capacity:
  --slo ttft=500ms,tpot=50ms,e2el=10s
                            a request is good when it meets each; goodput counts them
  --attainment F            the share of good requests a load must reach to count as served (0.95)
  --target-rps R            with a sweep: the instances (launch --instances, or replicaCount) R needs

Output:
  --json                    one JSON document (stable field names) instead of the table
  --out DIR                 also write records.jsonl (one line per request), summary.json and, for a
                            sweep, latency.svg (latency against load)

Token counts come from the server's usage (stream_options.include_usage). TTFT, TPOT, ITL and
end-to-end latency follow vllm bench serve. Ctrl-C ends the run and still reports what was measured
(exit 130). The bench warns when this machine, not the server, could not keep the schedule.
`;

export const bench: CliCommand = {
  name: "bench",
  synopsis: [["bench URL|--launch P [--rate R|--concurrency N|--sweep ...]", "measure latency and capacity"]],
  help: HELP,
  run: runBench,
};
