import { describe, expect, it } from "vitest";
import { conversationWorkload, turnMessages } from "./conversations.js";

const options = { sessions: 400, meanTurns: 4, maxTurns: 20, systemPromptWords: 30, userWords: 12 };

describe("conversationWorkload", () => {
  it("is the same for the same seed and differs for another", () => {
    expect(conversationWorkload(options)).toEqual(conversationWorkload(options));
    expect(conversationWorkload({ ...options, seed: 2 })).not.toEqual(conversationWorkload(options));
  });

  it("skews conversation lengths geometrically around the mean, within 1 and the cap", () => {
    const lengths = conversationWorkload(options).conversations.map((c) => c.turns.length);
    const mean = lengths.reduce((a, b) => a + b, 0) / lengths.length;
    expect(mean).toBeGreaterThan(3.4);
    expect(mean).toBeLessThan(4.6);
    expect(Math.min(...lengths)).toBe(1);
    expect(Math.max(...lengths)).toBeLessThanOrEqual(20);
    // Geometric: one-turn conversations are the most common length, about a quarter of them (p = 1/4).
    const single = lengths.filter((n) => n === 1).length / lengths.length;
    expect(single).toBeGreaterThan(0.18);
    expect(single).toBeLessThan(0.32);
  });

  it("gives every conversation its own start and one shared system prompt", () => {
    const workload = conversationWorkload(options);
    expect(workload.systemPrompt.split(" ")).toHaveLength(30);
    const firsts = new Set(workload.conversations.map((c) => c.turns[0]));
    expect(firsts.size).toBe(options.sessions);
    expect(new Set(workload.conversations.map((c) => c.session)).size).toBe(options.sessions);
  });

  it("opens each conversation with a context of its own when asked, carried by every later turn", () => {
    const workload = conversationWorkload({ ...options, sessions: 50, meanTurns: 50, contextWords: 200 });
    const [first, second] = workload.conversations;
    if (first === undefined || second === undefined) throw new Error("no conversations");
    // The session id, 200 words of context, then the question.
    expect(first.turns[0]?.split(" ")).toHaveLength(1 + 200 + options.userWords);
    expect(first.turns[1]?.split(" ")).toHaveLength(options.userWords);
    expect(first.turns[0]?.slice(first.session.length)).not.toBe(
      second.turns[0]?.slice(second.session.length),
    );
    expect(turnMessages(workload, first, 3, ["a", "b", "c"])[1]?.content).toBe(first.turns[0]);
  });
});

describe("turnMessages", () => {
  it("builds each turn on the whole conversation before it, answers included", () => {
    const workload = conversationWorkload({ ...options, sessions: 1, meanTurns: 50, maxTurns: 3 });
    const conversation = workload.conversations[0];
    if (conversation === undefined) throw new Error("no conversation");
    const third = turnMessages(workload, conversation, 2, ["first answer", "second answer"]);
    expect(third.map((m) => m.role)).toEqual(["system", "user", "assistant", "user", "assistant", "user"]);
    expect(third[2]?.content).toBe("first answer");
    expect(third[5]?.content).toBe(conversation.turns[2]);
    expect(turnMessages(workload, conversation, 0, [])).toEqual(third.slice(0, 2));
  });

  it("leaves the system message out when the workload has none", () => {
    const workload = conversationWorkload({ ...options, systemPromptWords: 0, sessions: 1 });
    const conversation = workload.conversations[0];
    if (conversation === undefined) throw new Error("no conversation");
    expect(turnMessages(workload, conversation, 0, [])[0]?.role).toBe("user");
  });
});
