import { setMaxListeners } from "node:events";
import type { ChatClient, ChatCompletionRequest } from "@finetune-studio/client";
import { arrivalTimesMs, type BenchRequestRecord } from "@finetune-studio/serve-kit";
import { sleep } from "../shared/abortable-sleep.js";
import { measureRequest } from "./measure-request.js";

/** How requests are offered: at a rate (Poisson-like arrivals) or by keeping a number open at once. */
export type LoadShape =
  | { kind: "rate"; rate: number; burstiness: number; seed: number }
  | { kind: "concurrency"; concurrency: number };

export interface LoadRun {
  records: BenchRequestRecord[];
  /** From the first request sent to the last answer, as vLLM's `benchmark_duration`. */
  durationSeconds: number;
  /** Rate runs: requests sent more than `LATE_MS` after their scheduled time, and the worst delay. */
  late: { count: number; worstMs: number };
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
  /** Called after each request ends, with every record so far. */
  onRecord?: (records: readonly BenchRequestRecord[]) => void;
}

/** Sends the load and measures every request; a stop (the signal) ends it with what was measured. */
export async function runLoad(options: LoadOptions): Promise<LoadRun> {
  // Every request in flight listens on the signal: hundreds at a high concurrency, none of them a leak.
  setMaxListeners(0, options.signal);
  const records: BenchRequestRecord[] = [];
  const started = performance.now();
  const deadline = options.durationMs === undefined ? Number.POSITIVE_INFINITY : started + options.durationMs;
  const late = { count: 0, worstMs: 0 };
  const requestAt = (index: number) =>
    options.requests[index % options.requests.length] as ChatCompletionRequest;
  const send = async (index: number) => {
    const record = await measureRequest(options.chat, requestAt(index), {
      startMs: performance.now() - started,
      signal: options.signal,
      timeoutMs: options.timeoutMs,
    });
    records.push(record);
    options.onRecord?.(records);
  };
  const more = (index: number) =>
    !options.signal.aborted && index < options.count && performance.now() < deadline;

  if (options.shape.kind === "concurrency") {
    let next = 0;
    const worker = async () => {
      while (more(next)) await send(next++);
    };
    await Promise.all(Array.from({ length: options.shape.concurrency }, worker));
  } else {
    const { rate, burstiness, seed } = options.shape;
    const times = arrivalTimesMs(options.count, rate, burstiness, seed);
    const open: Promise<void>[] = [];
    for (let index = 0; more(index); index++) {
      const due = started + (times[index] ?? 0);
      const wait = due - performance.now();
      if (wait > 0 && !(await sleep(wait, options.signal))) break;
      const behind = performance.now() - due;
      if (behind > LATE_MS) late.count++;
      late.worstMs = Math.max(late.worstMs, behind);
      open.push(send(index));
    }
    await Promise.all(open);
  }
  const lastEnd = records.reduce((end, record) => Math.max(end, record.startMs + record.latencyMs), 0);
  const durationSeconds = lastEnd / 1000;
  return { records, durationSeconds, late };
}
