import { getFreePort, getFreePortFollowedBy, waitForOutput } from "@finetune-studio/testing";
import { afterAll, describe, expect, it } from "vitest";
import { cleanEnv, fakeVllmEnv, startCli } from "./test/cli-process.js";
import { FLEET_READY, LIGHT_VLLM, startFleet } from "./test/fleet-launch.js";
import { runCapture } from "./test/run-cli.js";
import { type ScheduleServer, startScheduleServer } from "./test/schedule-server.js";
import { stoppedAfterEach } from "./test/stopped-after-each.js";

// `studio-serve bench --conversations`: multi-turn conversations, each turn with the whole history and the
// answers before it, the session header when asked, and the prefix-cache hit rate the instances counted.

const servers: ScheduleServer[] = [];
const running = stoppedAfterEach();
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

interface Seen {
  messages: { role: string; content: string }[];
  session: string | undefined;
}

function documentOf(output: string) {
  const json = output.slice(output.indexOf("{"));
  return JSON.parse(json.slice(0, json.lastIndexOf("}") + 1));
}

describe("studio-serve bench --conversations", { timeout: 180_000 }, () => {
  it("plays each conversation turn by turn with its history, sends the session header, and says when it cannot read the cache", async () => {
    const seen: Seen[] = [];
    const server = await startScheduleServer({
      firstChunkMs: 5,
      chunkEveryMs: 1,
      chunks: 3,
      promptTokens: 12,
      onChat: (body, headers) => {
        seen.push({ messages: JSON.parse(body).messages, session: headers["x-conv"] as string | undefined });
      },
    });
    servers.push(server);
    const args = ["bench", server.url, "--conversations", "12", "--turns", "3", "--concurrency", "3"];
    const result = await runCapture(
      [...args, "--session-header", "x-conv", "--input-tokens", "20"],
      cleanEnv(),
    );
    expect(result.code).toBe(0);
    expect(seen.length).toBeGreaterThan(12);
    const bySession = new Map<string | undefined, Seen[]>();
    for (const entry of seen) bySession.set(entry.session, [...(bySession.get(entry.session) ?? []), entry]);
    expect(bySession.size).toBe(12);
    expect(bySession.has(undefined)).toBe(false);
    for (const turns of bySession.values()) {
      turns.forEach((turn, index) => {
        // The shared system prompt, then each earlier turn and its answer (the stand-in answers "xxx").
        expect(turn.messages[0]?.role).toBe("system");
        expect(turn.messages[0]?.content.split(" ")).toHaveLength(20);
        expect(turn.messages).toHaveLength(2 + 2 * index);
        for (let earlier = 0; earlier < index; earlier += 1) {
          expect(turn.messages[1 + 2 * earlier]).toEqual(turns[earlier]?.messages.at(-1));
          expect(turn.messages[2 + 2 * earlier]).toEqual({ role: "assistant", content: "xxx" });
        }
      });
    }
    expect(seen[0]?.messages[0]).toEqual(seen.at(-1)?.messages[0]);
    // Skewed lengths: not every conversation has the same number of turns.
    expect(new Set([...bySession.values()].map((turns) => turns.length)).size).toBeGreaterThan(1);
    expect(result.stdout).toMatch(/prefix-cache hit rate: unknown: .*\/metrics could not be read/);
  });

  it("--think-time waits between an answer and the next turn, and --context-tokens opens each conversation with its own", async () => {
    const arrivals = new Map<string, { at: number; messages: Seen["messages"] }[]>();
    const server = await startScheduleServer({
      firstChunkMs: 1,
      chunkEveryMs: 1,
      chunks: 2,
      promptTokens: 12,
      onChat: (body, headers) => {
        const session = String(headers["x-conv"]);
        const turn = { at: performance.now(), messages: JSON.parse(body).messages };
        arrivals.set(session, [...(arrivals.get(session) ?? []), turn]);
      },
    });
    servers.push(server);
    const result = await runCapture(
      [
        ...["bench", server.url, "--conversations", "6", "--turns", "3", "--concurrency", "3"],
        ...["--think-time", "0.2", "--context-tokens", "30", "--session-header", "x-conv"],
      ],
      cleanEnv(),
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("6 conversations, 3 at once, 0.2 s think time");
    expect(arrivals.size).toBe(6);
    for (const turns of arrivals.values()) {
      // The conversation's waits add up to 200 ms a turn after the first (a timer may fire a millisecond
      // early); without them, a turn follows the last answer within milliseconds.
      const span = (turns.at(-1)?.at ?? 0) - (turns[0]?.at ?? 0);
      expect(span).toBeGreaterThanOrEqual((turns.length - 1) * 199);
      // The first user message: the conversation's id, its 30 words of context, then the question.
      const firstUser = (turn: (typeof turns)[number]) =>
        turn.messages.find((m) => m.role === "user")?.content;
      const first = firstUser(turns[0] ?? { at: 0, messages: [] }) ?? "";
      expect(first.split(" ")).toHaveLength(1 + 30 + 32);
      for (const turn of turns) expect(firstUser(turn)).toBe(first);
    }
  });

  it("--launch P: the hit rate the launch's instances counted between before and after the run", async () => {
    const port = await getFreePortFollowedBy(3); // two instances and the front door's metrics
    // Each stand-in finds 15 of each prompt's 20 tokens in its prefix cache.
    const fake = fakeVllmEnv({ ...LIGHT_VLLM, FAKE_VLLM_PROMPT_TOKENS: "20", FAKE_VLLM_PREFIX_HITS: "15" });
    const launch = startFleet(running, port, fake.env, { instances: 2 });
    await waitForOutput(launch, FLEET_READY, 120_000);
    const proc = startCli(
      [
        "bench",
        "--launch",
        String(port),
        "--conversations",
        "8",
        "--turns",
        "2",
        "--concurrency",
        "4",
        "--json",
      ],
      fake.env,
    );
    running.push(proc);
    const code = await proc.exited;
    if (code !== 0) console.info(proc.output());
    expect(code).toBe(0);
    const document = documentOf(proc.output());
    const turns = document.levels[0].metrics.completed;
    expect(turns).toBeGreaterThanOrEqual(8);
    expect(document.prefixCache).toEqual({
      hitRate: 0.75,
      tokens: 20 * turns,
      instances: [`http://127.0.0.1:${port + 1}`, `http://127.0.0.1:${port + 2}`],
      unknown: null,
    });
  });

  it.each([
    [["--turns", "3"], /--turns: needs --conversations N/],
    [["--session-header", "x-conv"], /--session-header: needs --conversations N/],
    [["--think-time", "2"], /--think-time: needs --conversations N/],
    [["--context-tokens", "200"], /--context-tokens: needs --conversations N/],
    [["--conversations", "4", "--think-time", "0"], /--think-time: must be a number above 0 \(given "0"\)/],
    [["--conversations", "4", "--think-time", "3601"], /--think-time: must be at most 3600 \(given "3601"\)/],
    [
      ["--conversations", "1000", "--context-tokens", "20000"],
      /--context-tokens: with --conversations 1000, must be at most 10000 \(10000000 in all, held in memory\) \(given "20000"\)/,
    ],
    [["--conversations", "4", "--rate", "2"], /--rate: does not apply to --conversations/],
    [["--conversations", "4", "--session-header", "bad header"], /--session-header: must be a header name/],
  ])("refuses %j before any request", async (flags, message) => {
    const url = `http://127.0.0.1:${await getFreePort()}`;
    const result = await runCapture(["bench", url, ...flags], cleanEnv());
    expect(result.stderr).toMatch(message);
    expect(result.code).toBe(2);
  });
});
