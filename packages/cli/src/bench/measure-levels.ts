// Running a bench: each load level in turn (or the one level of conversations), measured as vLLM's bench
// measures it, with a progress line; a stop (the signal) ends the run with what was measured.
import { type ChatClient, type ChatCompletionRequest, createChatClient } from "@finetune-studio/client";
import {
  type BenchRequestRecord,
  computeBenchMetrics,
  conversationWorkload,
  type SweepPoint,
} from "@finetune-studio/serve-kit";
import { stageRequests } from "@finetune-studio/serve-kit/internal";
import type { CliIo } from "../shared/io.js";
import type { BenchRun, Conversations, LoadLevel } from "./options.js";
import { playConversations } from "./play-conversations.js";
import { type ProgressLine, progressLine } from "./progress.js";
import { levelLabel } from "./report.js";
import { LATE_MS, type LoadRecord, type LoadRun, runLoad } from "./run-load.js";

/**
 * One level measured: its load (a concurrency level's is the concurrency it reached), the load asked for,
 * its metrics, its records and how far the generator fell behind.
 */
export interface Measured extends SweepPoint {
  label: string;
  asked: number;
  reachedConcurrency: number;
  records: LoadRecord[];
  late: LoadRun["late"];
}

/** What every level of a run shares: the server, its key, and the signal that stops the run. */
export interface BenchTarget {
  url: string;
  model: string;
  apiKey: string | undefined;
  chat: ChatClient;
  signal: AbortSignal;
}

/** Each load level in turn, until the run is stopped. */
export async function measureLevels(
  plan: BenchRun,
  requests: readonly ChatCompletionRequest[],
  target: BenchTarget,
  io: CliIo,
): Promise<Measured[]> {
  const measured: Measured[] = [];
  for (const level of plan.levels) {
    if (target.signal.aborted) break;
    const load = (onRecord: (records: readonly BenchRequestRecord[]) => void) =>
      runLoad({
        chat: target.chat,
        requests,
        count: countOf(level, plan),
        ...(plan.durationMs === undefined ? {} : { durationMs: plan.durationMs }),
        shape: level.shape,
        timeoutMs: plan.timeoutMs,
        signal: target.signal,
        secrets: target.apiKey === undefined ? [] : [target.apiKey],
        onRecord,
      });
    measured.push(await measureLevel(level, plan, io, load));
  }
  return measured;
}

/** The one level of --conversations: N conversations, --concurrency of them at once. */
export async function measureConversations(
  plan: BenchRun,
  conversations: Conversations,
  target: BenchTarget,
  io: CliIo,
): Promise<Measured> {
  const asked = plan.levels[0] as LoadLevel;
  const thinking = conversations.thinkMs > 0 ? `, ${conversations.thinkMs / 1000} s think time` : "";
  const level = { ...asked, label: `${conversations.count} conversations, ${asked.load} at once${thinking}` };
  const chatFor = sessionChats(target.url, target.apiKey, conversations);
  return measureLevel(level, plan, io, (onRecord) =>
    playConversations({
      workload: workloadOf(conversations, plan),
      model: target.model,
      concurrency: level.load,
      thinkMs: conversations.thinkMs,
      outputTokens: plan.outputTokens,
      chatFor,
      timeoutMs: plan.timeoutMs,
      signal: target.signal,
      secrets: target.apiKey === undefined ? [] : [target.apiKey],
      onRecord,
    }),
  );
}

/** The requests one level sends: its stages', --requests, or as many as --duration takes at its rate. */
export function countOf(level: LoadLevel, plan: BenchRun): number {
  if (level.shape.kind === "stages") {
    return level.shape.stages.reduce((sum, stage) => sum + stageRequests(stage), 0);
  }
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

/** One level sent by `send`, with its progress line, and measured as vLLM's bench measures it. */
export async function measureLevel(
  level: LoadLevel,
  plan: BenchRun,
  io: CliIo,
  send: (
    onRecord: (records: readonly BenchRequestRecord[]) => void,
    progress: ProgressLine,
  ) => Promise<LoadRun>,
): Promise<Measured> {
  const progress = progressLine(level.label, io);
  const run = await send(progress.update, progress);
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
