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
    [["--conversations", "4", "--rate", "2"], /--rate: does not apply to --conversations/],
    [["--conversations", "4", "--session-header", "bad header"], /--session-header: must be a header name/],
  ])("refuses %j before any request", async (flags, message) => {
    const url = `http://127.0.0.1:${await getFreePort()}`;
    const result = await runCapture(["bench", url, ...flags], cleanEnv());
    expect(result.stderr).toMatch(message);
    expect(result.code).toBe(2);
  });
});
