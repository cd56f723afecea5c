import { seededRandom } from "./schedule.js";

// A multi-turn chat workload, shaped like production-stack's multi-round QA benchmark: many conversations
// that share one system prompt, each a run of user turns sent one after another with every answer appended
// to the history, so each turn's prompt starts with the whole conversation before it; a conversation may
// open with a context of its own (a document, the user's data: production-stack's user_info_len), which
// every later turn carries again. Conversation lengths are skewed (geometric: many short, a few long), as
// real chat traffic is.

export interface ConversationWorkloadOptions {
  /** How many conversations. */
  sessions: number;
  /** The mean number of user turns per conversation (at least 1). */
  meanTurns: number;
  /** No conversation has more turns than this. */
  maxTurns: number;
  /** Words in the system prompt every conversation starts with (0: none). */
  systemPromptWords: number;
  /** Words in each user message. */
  userWords: number;
  /** Words of context of its own (a document, the user's data) each conversation's first message opens with. Default 0. */
  contextWords?: number;
  /** The same workload for the same seed. Default 1. */
  seed?: number;
}

export interface Conversation {
  /** A stable id, sent as the session header when the run names sessions. */
  session: string;
  /** Its user messages, in order. */
  turns: string[];
}

export interface ConversationWorkload {
  systemPrompt: string;
  conversations: Conversation[];
}

export interface ChatTurnMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

const WORDS = [
  "model",
  "adapter",
  "dataset",
  "token",
  "latency",
  "cache",
  "prompt",
  "answer",
  "batch",
  "serve",
];

export function conversationWorkload(options: ConversationWorkloadOptions): ConversationWorkload {
  const random = seededRandom(options.seed ?? 1);
  const words = (count: number) =>
    Array.from({ length: count }, () => WORDS[Math.floor(random() * WORDS.length)]).join(" ");
  const systemPrompt = options.systemPromptWords > 0 ? words(options.systemPromptWords) : "";
  // Geometric turns with the given mean: P(k) = p (1 - p)^(k - 1), p = 1 / mean.
  const p = 1 / Math.max(1, options.meanTurns);
  const conversations = Array.from({ length: options.sessions }, (_, index) => {
    const drawn = p >= 1 ? 1 : 1 + Math.floor(Math.log(1 - random()) / Math.log(1 - p));
    const count = Math.max(1, Math.min(options.maxTurns, drawn));
    const session = `conversation-${options.seed ?? 1}-${index}`;
    const context = (options.contextWords ?? 0) > 0 ? `${words(options.contextWords ?? 0)} ` : "";
    const turns = Array.from({ length: count }, (_, turn) =>
      turn === 0 ? `${session}: ${context}${words(options.userWords)}` : words(options.userWords),
    );
    return { session, turns };
  });
  return { systemPrompt, conversations };
}

/** The messages of turn `turn` (0-based): the system prompt, then every earlier turn and its answer. */
export function turnMessages(
  workload: ConversationWorkload,
  conversation: Conversation,
  turn: number,
  answers: readonly string[],
): ChatTurnMessage[] {
  const messages: ChatTurnMessage[] =
    workload.systemPrompt === "" ? [] : [{ role: "system", content: workload.systemPrompt }];
  for (let earlier = 0; earlier < turn; earlier += 1) {
    messages.push({ role: "user", content: conversation.turns[earlier] ?? "" });
    messages.push({ role: "assistant", content: answers[earlier] ?? "" });
  }
  messages.push({ role: "user", content: conversation.turns[turn] ?? "" });
  return messages;
}
