import { readFileSync } from "node:fs";
import { Agent } from "node:http";
import { join } from "node:path";
import { getFreePortFollowedBy, waitForOutput } from "@finetune-studio/testing";
import { describe, expect, it } from "vitest";
import { runtimeDirOf } from "./supervise/runtime-dir.js";
import { chatServed, loadThrough } from "./test/chat-load.js";
import { fakeVllmEnv } from "./test/cli-process.js";
import { FLEET_READY, LIGHT_VLLM, reloadBySighup, startFleet } from "./test/fleet-launch.js";
import { runCapture } from "./test/run-cli.js";
import { stoppedAfterEach } from "./test/stopped-after-each.js";

// launch --instances 3 --routing session behind Debian's real HAProxy: each session header value goes to one
// instance (the stand-in vLLM names itself by its pid in each answer's id). A rolling reload (SIGHUP) under
// load from sessions must fail no request: the drain must count the requests HAProxy routed by affinity, or
// it restarts an instance under them. While one instance restarts, the sessions of the others stay put, and
// after the reload every session is back on its instance.

const running = stoppedAfterEach();

const HEADER = "x-conversation";

/** Instance index by pid, from the reload's lines: `instance i (...): stopped (pid P)` and `serves again (pid P)`. */
function instanceByPid(output: string): Map<number, number> {
  const byPid = new Map<number, number>();
  for (const match of output.matchAll(
    /reload: instance (\d+) \(.*?\): (?:stopped|serves again) \(pid (\d+)\)/g,
  )) {
    byPid.set(Number(match[2]), Number(match[1]));
  }
  return byPid;
}

/** The instance the reload has drained and not yet put back, by the lines so far. */
function restarting(output: string): number | undefined {
  let current: number | undefined;
  for (const match of output.matchAll(/reload: instance (\d+) \(.*?\): (drained|serves again)/g)) {
    current = match[2] === "drained" ? Number(match[1]) : undefined;
  }
  return current;
}

describe("launch --instances --routing session", { timeout: 400_000 }, () => {
  it("keeps sessions on their instances through a rolling reload under load, failing no request", async () => {
    const port = await getFreePortFollowedBy(4); // three instances and the front door's metrics
    const fake = fakeVllmEnv(LIGHT_VLLM);
    const proc = startFleet(running, port, fake.env, {
      instances: 3,
      more: ["--routing", "session", "--session-header", HEADER],
    });
    await waitForOutput(proc, FLEET_READY, 120_000);

    // Where each session lives, asked one at a time (asked twice: the same instance both times).
    const probe = new Agent({ keepAlive: true, maxSockets: 1 });
    const home = new Map<string, number>();
    for (let i = 0; i < 30; i += 1) {
      const session = `conv-${i}`;
      const first = await chatServed(port, probe, false, { [HEADER]: session });
      const again = await chatServed(port, probe, false, { [HEADER]: session });
      expect(first.pid).toBeDefined();
      expect(again.pid).toBe(first.pid);
      home.set(session, first.pid as number);
    }
    const pids = [...new Set(home.values())];
    expect(pids).toHaveLength(3);
    // Two sessions per instance, one caller each.
    const sessions = pids.flatMap((pid) => [...home].filter(([, at]) => at === pid).slice(0, 2));
    expect(sessions).toHaveLength(6);

    const served: { session: string; pid: number | undefined; during: number | undefined }[] = [];
    const load = await loadThrough(port, {
      minimum: 1_500,
      triggerAfter: 150,
      callers: sessions.length,
      call: async (caller) => {
        const [session] = sessions[caller] as [string, number];
        const before = restarting(proc.output());
        const answer = await chatServed(port, agentFor(caller), caller % 2 === 0, { [HEADER]: session });
        const after = restarting(proc.output());
        served.push({ session, pid: answer.pid, during: before === after ? before : -1 });
        return answer.whole;
      },
      trigger: () => reloadBySighup(proc),
    });
    console.info(`rolling reload with session routing: ${load.failed} failed of ${load.sent} requests`);
    expect(load.triggerDone).toBe(true);
    expect(load.failed).toBe(0);

    const byPid = instanceByPid(proc.output());
    const homeOf = (session: string) => byPid.get(home.get(session) as number);
    for (const pid of pids) expect(byPid.has(pid)).toBe(true);
    // While instance k restarts, a session of another instance is answered where it lives. HAProxy's bounded
    // load may move one while the restarting instance's sessions crowd its neighbour: a few, not most.
    const others = served.filter(
      (entry) => entry.during !== undefined && entry.during >= 0 && entry.during !== homeOf(entry.session),
    );
    const stayed = others.filter((entry) => byPid.get(entry.pid as number) === homeOf(entry.session));
    console.info(
      `during the reload: ${stayed.length} of ${others.length} answers to other instances' sessions at home`,
    );
    expect(others.length).toBeGreaterThan(50);
    expect(stayed.length / others.length).toBeGreaterThanOrEqual(0.9);

    // After it, every session is back on its instance (now a new process).
    for (const [session] of sessions) {
      const answer = await chatServed(port, probe, false, { [HEADER]: session });
      expect(byPid.get(answer.pid as number)).toBe(homeOf(session));
      expect(answer.pid).not.toBe(home.get(session));
    }
    probe.destroy();
    for (const agent of agents.values()) agent.destroy();

    proc.child.kill("SIGINT");
    expect(await proc.exited).toBe(0);
  });

  it("routes by x-session-id by default, and least-busy without it; studio-serve haproxy prints its file", async () => {
    const port = await getFreePortFollowedBy(3); // two instances and the front door's metrics
    const { env } = fakeVllmEnv(LIGHT_VLLM);
    const limits = ["--max-num-seqs", "16", "--max-connections", "1000"];
    const proc = startFleet(running, port, env, { instances: 2, more: limits });
    await waitForOutput(proc, FLEET_READY, 120_000);
    // The same inputs, given to `studio-serve haproxy`, print the file launch wrote.
    const dir = runtimeDirOf(port, env);
    const printed = await runCapture([
      "haproxy",
      ...[
        "--upstream",
        `127.0.0.1:${port + 1}`,
        "--upstream",
        `127.0.0.1:${port + 2}`,
        "--listen",
        String(port),
      ],
      ...[...limits, "--metrics-port", String(port + 3), "--runtime-socket", join(dir, "haproxy.sock")],
    ]);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toBe(readFileSync(join(dir, "haproxy.cfg"), "utf8"));
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const pidsOf = async (headers: Record<string, string>) => {
      const pids = new Set<number | undefined>();
      for (let i = 0; i < 12; i += 1) pids.add((await chatServed(port, agent, i % 2 === 0, headers)).pid);
      return pids;
    };
    // One caller at a time: least-busy finds both instances idle and takes turns (HAProxy's leastconn).
    expect((await pidsOf({})).size).toBe(2);
    for (const session of ["a", "b", "c"]) expect((await pidsOf({ "x-session-id": session })).size).toBe(1);
    agent.destroy();
    proc.child.kill("SIGINT");
    expect(await proc.exited).toBe(0);
  });
});

/** One keep-alive connection per caller, as a chat client holds. */
const agents = new Map<number, Agent>();
function agentFor(caller: number): Agent {
  let agent = agents.get(caller);
  if (agent === undefined) {
    agent = new Agent({ keepAlive: true, maxSockets: 1 });
    agents.set(caller, agent);
  }
  return agent;
}
