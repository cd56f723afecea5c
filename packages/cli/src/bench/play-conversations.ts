import { setMaxListeners } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import type { ChatClient, ChatCompletionRequest } from "@finetune-studio/client";
import {
  arrivalTimesMs,
  type BenchRequestRecord,
  type ConversationWorkload,
  turnMessages,
} from "@finetune-studio/serve-kit";
import { measureRequest } from "./measure-request.js";
import { durationOf, type LoadRun } from "./run-load.js";

export interface ConversationRunOptions {
  workload: ConversationWorkload;
  model: string;
  /** Conversations played at once. */
  concurrency: number;
  /** The mean wait between an answer and the conversation's next turn; 0: none. */
  thinkMs: number;
  outputTokens: number;
  /** The client a conversation's turns go through: one that names its session, when the run sends one. */
  chatFor: (session: string) => ChatClient;
  timeoutMs: number;
  signal: AbortSignal;
  secrets?: readonly string[];
  onRecord?: (records: readonly BenchRequestRecord[]) => void;
}

/**
 * Plays each conversation turn by turn, `concurrency` at once, as production-stack's multi-round QA bench
 * does: a turn is sent once the previous one's answer came back, with the whole history and that answer
 * appended; with a think time, after a wait (exponential, drawn by the conversation's place in the
 * workload, so every run waits alike), as a person reads the answer. A failed turn ends its conversation
 * (the next would lack its answer). Each turn is measured as a single request is.
 */
export async function playConversations(options: ConversationRunOptions): Promise<LoadRun> {
  setMaxListeners(0, options.signal);
  const { workload } = options;
  const records: BenchRequestRecord[] = [];
  const started = performance.now();
  let next = 0;
  let open = 0;
  let reachedConcurrency = 0;
  const play = async () => {
    while (!options.signal.aborted && next < workload.conversations.length) {
      const place = next++;
      const conversation = workload.conversations[place];
      if (conversation === undefined) break;
      const chat = options.chatFor(conversation.session);
      const answers: string[] = [];
      const waits = thinkTimesMs(conversation.turns.length - 1, options.thinkMs, place);
      open++;
      reachedConcurrency = Math.max(reachedConcurrency, open);
      for (let turn = 0; turn < conversation.turns.length && !options.signal.aborted; turn += 1) {
        const wait = waits[turn - 1];
        if (wait !== undefined) await sleep(wait, undefined, { signal: options.signal }).catch(() => {});
        if (options.signal.aborted) break;
        let answer = "";
        const request = {
          model: options.model,
          messages: turnMessages(workload, conversation, turn, answers),
          max_tokens: options.outputTokens,
          ignore_eos: true,
        } as ChatCompletionRequest;
        const record = await measureRequest(chat, request, {
          startMs: performance.now() - started,
          signal: options.signal,
          timeoutMs: options.timeoutMs,
          secrets: options.secrets ?? [],
          onText: (text) => {
            answer += text;
          },
        });
        records.push(record);
        options.onRecord?.(records);
        if (!record.ok) break;
        answers.push(answer);
      }
      open--;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, play));
  return {
    records,
    durationSeconds: durationOf(records),
    late: { count: 0, worstMs: 0 },
    reachedConcurrency,
  };
}

/** `count` exponential waits with mean `meanMs` (none when 0), summing to count x meanMs. */
function thinkTimesMs(count: number, meanMs: number, seed: number): number[] {
  if (meanMs === 0 || count === 0) return [];
  const times = arrivalTimesMs(count, 1000 / meanMs, 1, seed + 1);
  return times.map((time, i) => time - (times[i - 1] ?? 0));
}
