// Routing for the prefix cache: `studio-serve launch --instances 4 --routing X` (least-busy, session,
// prefix) over stand-in vLLMs with a prefix cache each (routing/prefix-cache-vllm.ts), what users run, and
// the same policy configured by hand in plain HAProxy over four more, a multi-turn conversation workload
// through each, interleaved in rounds. It reports the prefix-cache hit rate the instances count against an
// oracle's (every conversation on an instance of its own with an unbounded cache), time to first token,
// and how evenly the instances were loaded.

import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { conversationWorkload, type RoutingPolicy } from "@finetune-studio/serve-kit";
import { ROUTING_POLICIES } from "@finetune-studio/serve-kit/internal";
import {
  getFreePort,
  getFreePortFollowedBy,
  type ManagedProcess,
  requireSystemTool,
  startProcess,
  waitForHttp,
} from "@finetune-studio/testing";
import { millis, ratio } from "../format.js";
import { startLaunch } from "../front-door/doors.js";
import type { Section } from "../report.js";
import { playConversations, type TurnRecord } from "../routing/conversation-client.js";
import { handRoutingConfig } from "../routing/hand-configs.js";
import { BLOCK_TOKENS, blockHashes, cachedBlocks, promptTokens } from "../routing/prefix-blocks.js";
import { median, percentile } from "../stats.js";
import { markdownTable } from "../table.js";

const STAND_IN = fileURLToPath(new URL("../routing/prefix-cache-vllm.js", import.meta.url));
const MODEL = "bench/prefix-stand-in";
const INSTANCES = 4;
const SESSION_HEADER = "x-session-id";

export interface RoutingSettings {
  rounds: number;
  sessions: number;
  /** Conversations in flight at once. */
  users: number;
  /** A caller's mean wait between an answer and its next turn. */
  thinkMs: number;
  cacheBlocks: number;
}

// Shaped like production-stack's multi-round QA bench: each conversation opens with a context of its own
// (its user_info) after the shared system prompt, and many people each read an answer before they ask
// again, so turns of many conversations interleave (in a closed loop, a caller's next turn would find the
// instance it just freed least busy and stick to it). 128 conversations in flight carry about 120,000
// tokens of history: the four caches of 65,536 tokens (8 GiB of KV cache for an 8B model, at 128 KiB a
// token) hold them once over, but no one cache holds them all, as least-busy would need. Answers stream at
// 100 tokens a second, so each instance holds tens of requests, as a real one does, and HAProxy's bounded
// load works on counts it can split finely.
export const fullRouting: RoutingSettings = {
  rounds: 2,
  sessions: 192,
  users: 128,
  thinkMs: 500,
  cacheBlocks: 4096,
};
export const quickRouting: RoutingSettings = { ...fullRouting, rounds: 1, sessions: 48, users: 32 };

const WORKLOAD = { meanTurns: 6, maxTurns: 12, systemPromptWords: 100, contextWords: 500, userWords: 20 };
const ANSWER_TOKENS = 64;
/** 100 tokens a second a stream, as vLLM serves an 8B model on one data-centre GPU at a moderate batch. */
const DECODE_MS = 10;

interface Door {
  policy: RoutingPolicy;
  /** "launch" (studio-serve launch --routing) or "by hand" (plain HAProxy). */
  name: string;
  port: number;
  instancePorts: readonly number[];
}

interface Run {
  hitRate: number;
  ttftMs: number[];
  busiestVsMean: number;
  failed: number;
  records: TurnRecord[];
}

interface Counters {
  queries: number;
  hits: number;
  finished: number;
}

async function scrape(port: number): Promise<Counters> {
  const page = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const value = (name: string) =>
    Number(new RegExp(`^vllm:${name}\\{[^}]*\\} (\\S+)$`, "m").exec(page)?.[1] ?? Number.NaN);
  return {
    queries: value("prefix_cache_queries_total"),
    hits: value("prefix_cache_hits_total"),
    finished: value("request_success_total"),
  };
}

/** The hit rate if every conversation had an instance of its own with an unbounded cache. */
function oracleHitRate(records: readonly TurnRecord[]): number {
  const seen = new Map<string, Set<string>>();
  let queries = 0;
  let hits = 0;
  for (const record of records) {
    const cache = seen.get(record.session) ?? new Set<string>();
    seen.set(record.session, cache);
    const tokens = promptTokens(record.messages);
    const hashes = blockHashes(tokens);
    hits += cachedBlocks(hashes, (hash) => cache.has(hash)) * BLOCK_TOKENS;
    queries += tokens.length;
    for (const hash of hashes) cache.add(hash);
  }
  return hits / queries;
}

export async function measureRouting(
  settings: RoutingSettings,
  step: (message: string) => void,
): Promise<Section> {
  const dir = mkdtempSync(join(tmpdir(), "routing-bench-"));
  const processes: ManagedProcess[] = [];
  try {
    step(`routing: ${INSTANCES} prefix-cache stand-ins for the doors by hand`);
    const cacheEnv = { PREFIX_CACHE_BLOCKS: String(settings.cacheBlocks), DECODE_MS: String(DECODE_MS) };
    const first = await getFreePortFollowedBy(INSTANCES - 1);
    const handPorts = Array.from({ length: INSTANCES }, (_, i) => first + i);
    for (const port of handPorts) {
      const proc = startProcess(process.execPath, [STAND_IN, "serve", MODEL, "--port", String(port)], {
        env: { ...process.env, ...cacheEnv },
      });
      processes.push(proc);
      await waitForHttp(`http://127.0.0.1:${port}/health`, { process: proc, timeoutMs: 30_000 });
    }
    // What users run: `studio-serve launch --instances 4 --routing X` starts its own stand-ins, as `vllm`.
    const vllm = join(dir, "vllm");
    writeFileSync(vllm, `#!/bin/sh\nexec "${process.execPath}" "${STAND_IN}" "$@"\n`);
    chmodSync(vllm, 0o755);
    const doors: Door[] = [];
    for (const policy of ROUTING_POLICIES) {
      step(`routing: launch --instances ${INSTANCES} --routing ${policy}`);
      const launch = await startLaunch({ binDir: dir }, cacheEnv, {
        instances: INSTANCES,
        model: MODEL,
        more: ["--routing", policy],
      });
      processes.push(launch.proc);
      doors.push({ policy, name: "launch", port: launch.port, instancePorts: launch.instancePorts });
      const port = await getFreePort();
      const file = join(dir, `${policy}-${port}.cfg`);
      writeFileSync(file, handRoutingConfig(policy, port, handPorts));
      const proc = startProcess(requireSystemTool("haproxy"), ["-db", "-f", file]);
      processes.push(proc);
      await waitForHttp(`http://127.0.0.1:${port}/health`, { process: proc, timeoutMs: 30_000 });
      doors.push({ policy, name: "by hand", port, instancePorts: handPorts });
    }
    const workload = conversationWorkload({ sessions: settings.sessions, ...WORKLOAD });
    const runs = new Map<string, Run[]>();
    for (let round = 0; round < settings.rounds; round += 1) {
      step(`routing: round ${round + 1} of ${settings.rounds}`);
      const order = round % 2 === 0 ? doors : [...doors].reverse();
      for (const door of order) {
        const { instancePorts } = door;
        await Promise.all(
          instancePorts.map((port) =>
            fetch(`http://127.0.0.1:${port}/reset_prefix_cache`, { method: "POST" }),
          ),
        );
        const before = await Promise.all(instancePorts.map(scrape));
        const records = await playConversations(workload, {
          port: door.port,
          model: MODEL,
          users: settings.users,
          answerTokens: ANSWER_TOKENS,
          thinkMs: settings.thinkMs,
          ...(door.policy === "session" ? { sessionHeader: SESSION_HEADER } : {}),
        });
        const after = await Promise.all(instancePorts.map(scrape));
        const delta = after.map((counters, i) => ({
          queries: counters.queries - (before[i]?.queries ?? 0),
          hits: counters.hits - (before[i]?.hits ?? 0),
          finished: counters.finished - (before[i]?.finished ?? 0),
        }));
        const sum = (key: keyof Counters) => delta.reduce((total, d) => total + d[key], 0);
        const key = `${door.policy}|${door.name}`;
        runs.set(key, [
          ...(runs.get(key) ?? []),
          {
            hitRate: sum("hits") / sum("queries"),
            ttftMs: records.filter((r) => r.ok).map((r) => r.ttftMs),
            busiestVsMean: Math.max(...delta.map((d) => d.finished)) / (sum("finished") / INSTANCES),
            failed: records.filter((r) => !r.ok).length,
            records,
          },
        ]);
      }
    }
    const oracle = oracleHitRate(runs.values().next().value?.[0]?.records ?? []);
    return routingSection(doors, runs, oracle, settings);
  } finally {
    await Promise.all(processes.reverse().map((proc) => proc.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
}

function routingSection(
  doors: readonly Door[],
  runs: Map<string, Run[]>,
  oracle: number,
  settings: RoutingSettings,
): Section {
  const ttftP50 = (list: readonly Run[]) => median(list.map((run) => percentile(run.ttftMs, 0.5)));
  const leastBusy = ttftP50(runs.get("least-busy|launch") ?? []);
  const rows = doors.map((door) => {
    const list = runs.get(`${door.policy}|${door.name}`) ?? [];
    const hitRate = median(list.map((run) => run.hitRate));
    const p50 = ttftP50(list);
    return [
      door.policy,
      door.name,
      `${(hitRate * 100).toFixed(1)}%`,
      ratio(hitRate, oracle),
      millis(p50),
      millis(median(list.map((run) => percentile(run.ttftMs, 0.99)))),
      ratio(p50, leastBusy),
      `${median(list.map((run) => run.busiestVsMean)).toFixed(2)}×`,
      String(list.reduce((total, run) => total + run.failed, 0)),
    ];
  });
  return {
    title: "Front door: routing for the prefix cache",
    method: `${INSTANCES} stand-in vLLMs (routing/prefix-cache-vllm.ts: an LRU of ${settings.cacheBlocks} prompt blocks of ${BLOCK_TOKENS} tokens each, one prefill at a time costing 5 ms plus 50 µs per uncached prompt token, then ${ANSWER_TOKENS} tokens streamed ${DECODE_MS} ms apart) started by \`studio-serve launch full ... --instances ${INSTANCES} --routing X\` ("launch": its HAProxy, haproxyConfig's routing, and its own stand-ins as \`vllm\`) and behind the same policy configured by hand in plain HAProxy (with http-no-delay; leastconn; \`balance hdr(x-session-id)\`; \`balance hash\` on the body's second message; the last two with consistent hashing). ${settings.users} callers play ${settings.sessions} conversations (a shared ${WORKLOAD.systemPromptWords}-word system prompt, then a ${WORKLOAD.contextWords}-word context of the conversation's own in its first message, ${WORKLOAD.userWords}-word user turns, geometric lengths with mean ${WORKLOAD.meanTurns} turns and at most ${WORKLOAD.maxTurns}), each turn streamed with the whole history, each caller waiting a think time after every answer (exponential, mean ${settings.thinkMs} ms, the same draws at every door); \`session\` runs send each conversation's id in ${SESSION_HEADER}, the others send no header. Caches are emptied before each run; ${settings.rounds} rounds, doors alternating, medians over rounds. Hit rate: prefix-cache hits over queries (tokens) summed over the instances' /metrics; the oracle puts every conversation on an instance of its own with an unbounded cache: ${(oracle * 100).toFixed(1)}% (a policy can pass it by a little: on a shared instance, a conversation's first turn finds the system prompt cached by others). "Busiest" divides the busiest instance's requests by the mean. Targets (issue #33): session routing's hit rate at least 0.9× the oracle's, its TTFT p50 at most 0.6× least-busy's, the busiest instance at most 1.25× the mean, no failed request; prefix routing without a header at least 0.8× the oracle's hit rate.`,
    table: markdownTable(
      [
        "policy",
        "door",
        "hit rate",
        "vs oracle",
        "TTFT p50",
        "TTFT p99",
        "p50 vs least-busy",
        "busiest vs mean",
        "failed",
      ],
      rows,
      ["left", "left", "right", "right", "right", "right", "right", "right", "right"],
    ),
  };
}
