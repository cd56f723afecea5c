import { Agent, request } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { arrivalTimesMs, type ConversationWorkload, turnMessages } from "@finetune-studio/serve-kit";
import type { PromptMessage } from "./prefix-blocks.js";

// Plays a conversation workload through a door: `users` callers, each taking the next conversation and
// sending its turns one after another (streamed), appending each answer to the history. Like the people
// production-stack's multi-round QA bench stands for, a caller reads each answer before it asks again: it
// waits a think time after the answer (random, exponential with mean `thinkMs`, the same draws for the
// same caller at every door), so turns from many conversations interleave as they do in real traffic and
// a caller does not keep an order that would let a least-busy balancer send it to the same instance each
// time. It keeps each turn's time to first token and the prompts it sent, for the oracle.

export interface TurnRecord {
  session: string;
  messages: PromptMessage[];
  ttftMs: number;
  ok: boolean;
}

export interface PlayOptions {
  port: number;
  model: string;
  users: number;
  answerTokens: number;
  /** A caller's mean wait between an answer and its next turn (and before its first). */
  thinkMs: number;
  /** Send each conversation's id in this header. */
  sessionHeader?: string;
}

function streamTurn(
  agent: Agent,
  options: PlayOptions,
  session: string,
  messages: PromptMessage[],
): Promise<{ answer: string; ttftMs: number; ok: boolean }> {
  const body = JSON.stringify({
    model: options.model,
    messages,
    max_tokens: options.answerTokens,
    stream: true,
  });
  const headers: Record<string, string | number> = {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
  };
  if (options.sessionHeader !== undefined) headers[options.sessionHeader] = session;
  const sent = performance.now();
  return new Promise((resolve) => {
    const req = request(
      { host: "127.0.0.1", port: options.port, method: "POST", path: "/v1/chat/completions", agent, headers },
      (res) => {
        let ttftMs = Number.NaN;
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (part: string) => {
          if (Number.isNaN(ttftMs)) ttftMs = performance.now() - sent;
          text += part;
        });
        res.on("end", () => {
          const answer = text
            .split("\n\n")
            .filter((event) => event.startsWith("data: {"))
            .map(
              (event) =>
                (JSON.parse(event.slice(6)) as { choices: { delta: { content?: string } }[] }).choices[0]
                  ?.delta.content ?? "",
            )
            .join("");
          resolve({ answer, ttftMs, ok: res.statusCode === 200 && text.endsWith("data: [DONE]\n\n") });
        });
        res.on("error", () => resolve({ answer: "", ttftMs, ok: false }));
      },
    );
    req.on("error", () => resolve({ answer: "", ttftMs: Number.NaN, ok: false }));
    req.end(body);
  });
}

export async function playConversations(
  workload: ConversationWorkload,
  options: PlayOptions,
): Promise<TurnRecord[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.users });
  const records: TurnRecord[] = [];
  let next = 0;
  const turns = workload.conversations.reduce((total, conversation) => total + conversation.turns.length, 0);
  const user = async (_: unknown, index: number) => {
    const waits = arrivalTimesMs(turns, 1000 / options.thinkMs, 1, index + 1);
    let waited = 0;
    for (let taken = next++; taken < workload.conversations.length; taken = next++) {
      const conversation = workload.conversations[taken];
      if (conversation === undefined) return;
      const answers: string[] = [];
      for (let turn = 0; turn < conversation.turns.length; turn += 1) {
        const messages = turnMessages(workload, conversation, turn, answers);
        await sleep((waits[waited] ?? 0) - (waits[waited - 1] ?? 0));
        waited += 1;
        const result = await streamTurn(agent, options, conversation.session, messages);
        records.push({ session: conversation.session, messages, ttftMs: result.ttftMs, ok: result.ok });
        answers.push(result.answer);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: options.users }, user));
  } finally {
    agent.destroy();
  }
  return records;
}
