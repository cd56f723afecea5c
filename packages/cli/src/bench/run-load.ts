import { setMaxListeners } from "node:events";
import type { ChatClient, ChatCompletionRequest } from "@finetune-studio/client";
import { arrivalTimesMs, type BenchRequestRecord } from "@finetune-studio/serve-kit";
import { type LoadStage, requestStages, stagedArrivalTimesMs } from "@finetune-studio/serve-kit/internal";
import { sleep } from "../shared/abortable-sleep.js";
import { measureRequest } from "./measure-request.js";

/**
 * How requests are offered: at a rate (Poisson-like arrivals; `maxConcurrency` caps how many are open at
 * once), at each stage's rate in turn (open-loop, as a rate), or by keeping a number open at once.
 */
export type LoadShape =
  | { kind: "rate"; rate: number; burstiness: number; seed: number; maxConcurrency?: number }
  | { kind: "stages"; stages: readonly LoadStage[]; burstiness: number; seed: number }
  | { kind: "concurrency"; concurrency: number };

/** A request measured; in a staged run, with the stage (from 1) that scheduled it. */
export type LoadRecord = BenchRequestRecord & { stage?: number };

export interface LoadRun {
  records: LoadRecord[];
  /** From the first request sent to the last answer, as vLLM's `benchmark_duration`. */
  durationSeconds: number;
  /** Rate runs: requests sent more than `LATE_MS` after their scheduled time, and the worst delay. */
  late: { count: number; worstMs: number };
  /** The most requests this run had open at once, failed ones included: the concurrency it reached. */
  reachedConcurrency: number;
}

/** A request this much behind its schedule means the generator, not the server, set the pace. */
export const LATE_MS = 10;

export interface LoadOptions {
  chat: ChatClient;
  /** The requests to send, in order; with `durationMs` they are sent round and round until it passes. */
  requests: readonly ChatCompletionRequest[];
  count: number;
  durationMs?: number;
  shape: LoadShape;
  timeoutMs: number;
  signal: AbortSignal;
  /** Texts no failure reason may hold (the key sent). */
  secrets?: readonly string[];
  /** Called after each request ends, with every record so far. */
  onRecord?: (records: readonly BenchRequestRecord[]) => void;
  /** The run's start on `performance.now()`'s clock (default: now), when another reader shares it. */
  startedAt?: number;
}

/** A run in progress: what was measured so far, what is open, and how to send the next request. */
interface Load {
  records: LoadRecord[];
  started: number;
  deadline: number;
  late: LoadRun["late"];
  open: number;
  reachedConcurrency: number;
  /** Called when a request ends and frees its slot. */
  onSlotFree: (() => void) | undefined;
  /** Sends request `index` (round and round the list) and records it. */
  send(index: number): Promise<void>;
  /** Whether request `index` is still to be sent: not stopped, within the count and the deadline. */
  more(index: number): boolean;
}

/** Sends the load and measures every request; a stop (the signal) ends it with what was measured. */
export async function runLoad(options: LoadOptions): Promise<LoadRun> {
  // Every request in flight listens on the signal: hundreds at a high concurrency, none of them a leak.
  setMaxListeners(0, options.signal);
  const load = startLoad(options);
  if (options.shape.kind === "concurrency") await keepOpen(load, options.shape.concurrency);
  else await sendOnSchedule(load, options, scheduleOf(options.shape, options.count));
  const { records, late, reachedConcurrency } = load;
  return { records, durationSeconds: durationOf(records), late, reachedConcurrency };
}

function startLoad(options: LoadOptions): Load {
  const started = options.startedAt ?? performance.now();
  const stages = options.shape.kind === "stages" ? requestStages(options.shape.stages) : undefined;
  const load: Load = {
    records: [],
    started,
    deadline: options.durationMs === undefined ? Number.POSITIVE_INFINITY : started + options.durationMs,
    late: { count: 0, worstMs: 0 },
    open: 0,
    reachedConcurrency: 0,
    onSlotFree: undefined,
    async send(index) {
      load.open++;
      load.reachedConcurrency = Math.max(load.reachedConcurrency, load.open);
      const request = options.requests[index % options.requests.length] as ChatCompletionRequest;
      const record = await measureRequest(options.chat, request, {
        startMs: performance.now() - started,
        signal: options.signal,
        timeoutMs: options.timeoutMs,
        secrets: options.secrets ?? [],
      });
      load.open--;
      load.onSlotFree?.();
      const stage = stages?.[index];
      load.records.push(stage === undefined ? record : { ...record, stage });
      options.onRecord?.(load.records);
    },
    more: (index) => !options.signal.aborted && index < options.count && performance.now() < load.deadline,
  };
  return load;
}

/** A concurrency level: `concurrency` workers, each sending its next request when its last one ends. */
async function keepOpen(load: Load, concurrency: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (load.more(next)) await load.send(next++);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** When each request of a rate or a staged level goes (ms from the start), and how many may be open at once. */
function scheduleOf(shape: Exclude<LoadShape, { kind: "concurrency" }>, count: number) {
  const { burstiness, seed } = shape;
  if (shape.kind === "stages") {
    return { times: stagedArrivalTimesMs(shape.stages, burstiness, seed), cap: Number.POSITIVE_INFINITY };
  }
  const { rate } = shape;
  // An infinite rate sends everything at once: no schedule to draw (and none to hold in memory).
  const times = Number.isFinite(rate) ? arrivalTimesMs(count, rate, burstiness, seed) : [];
  return { times, cap: shape.maxConcurrency ?? Number.POSITIVE_INFINITY };
}

/** A scheduled level: each request sent at its arrival time, late ones counted, at most `cap` open. */
async function sendOnSchedule(
  load: Load,
  options: LoadOptions,
  { times, cap }: { times: readonly number[]; cap: number },
): Promise<void> {
  const sending: Promise<void>[] = [];
  // When the loop last came back from waiting for a free slot: an arrival due before then waited for the
  // cap, not for this machine, and is not late.
  let slotFreeAt = load.started;
  for (let index = 0; load.more(index); index++) {
    const due = load.started + (times[index] ?? 0);
    const wait = due - performance.now();
    if (wait > 0 && !(await sleep(wait, options.signal))) break;
    const behind = performance.now() - Math.max(due, slotFreeAt);
    if (behind > LATE_MS) load.late.count++;
    load.late.worstMs = Math.max(load.late.worstMs, behind);
    // vLLM's `--max-concurrency` with `--request-rate` (`limited_request_func` in
    // vllm/benchmarks/serve.py at 009e6d4a1cd6): arrivals keep their schedule, and an arrival that finds
    // every slot taken waits, in order, for one to free; it is sent (and timed) from then.
    if (load.open >= cap) {
      await new Promise<void>((resolve) => {
        load.onSlotFree = resolve;
      });
      load.onSlotFree = undefined;
      slotFreeAt = performance.now();
      if (options.signal.aborted || performance.now() >= load.deadline) break;
    }
    sending.push(load.send(index));
  }
  await Promise.all(sending);
}

/** Seconds from the first request sent to the last answer, as vLLM's `benchmark_duration`. */
export function durationOf(records: readonly BenchRequestRecord[]): number {
  return records.reduce((end, record) => Math.max(end, record.startMs + record.latencyMs), 0) / 1000;
}
