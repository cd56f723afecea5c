// The front door `launch --instances 2` runs (HAProxy, configured by serve-kit's haproxyConfig) against
// what users would put there instead, plain nginx, and against HAProxy configured by hand, in front of the
// same two stand-in vLLMs, interleaved in rounds; then 1,000 concurrent streams through each door, and
// paced streams timed to their first chunk (paced-streams.ts). The stand-in (C, epoll) is measured alone
// first, to show it is not the limit. wrk drives the throughput rows.
import { haproxyConfig } from "@finetune-studio/serve-kit";
import { getFreePort, type ManagedProcess, startProcess, waitForOutput } from "@finetune-studio/testing";
import { count, millis, perSecond, ratio } from "../format.js";
import { type Door, handHaproxyConfig, MODEL, startDoors } from "../front-door/doors.js";
import { instructionsPerRequest } from "../front-door/instructions.js";
import { buildStandIn, CHUNKS_PER_STREAM, type StandInKit } from "../front-door/stand-ins.js";
import { rate, runWrk, type WrkResult, writeWrkScript } from "../front-door/wrk.js";
import type { Section } from "../report.js";
import { median } from "../stats.js";
import { markdownTable } from "../table.js";
import { fullPaced, measurePacedStreams, type PacedSettings, quickPaced } from "./paced-streams.js";

export interface FrontDoorSettings {
  rounds: number;
  secondsPerRow: number;
  manyStreams: number;
  paced: PacedSettings;
}

export const fullFrontDoor: FrontDoorSettings = {
  rounds: 6,
  secondsPerRow: 3,
  manyStreams: 1_000,
  paced: fullPaced,
};
export const quickFrontDoor: FrontDoorSettings = {
  rounds: 1,
  secondsPerRow: 1,
  manyStreams: 1_000,
  paced: quickPaced,
};

interface Load {
  name: string;
  stream: boolean;
  callers: number;
}

const LOADS: Load[] = [
  { name: "JSON completions", stream: false, callers: 16 },
  { name: "JSON completions", stream: false, callers: 64 },
  { name: "streamed completions", stream: true, callers: 16 },
  { name: "streamed completions", stream: true, callers: 64 },
];

export async function measureFrontDoor(
  settings: FrontDoorSettings,
  step: (message: string) => void,
): Promise<Section[]> {
  const kit = buildStandIn();
  const processes: ManagedProcess[] = [];
  // launch stops HAProxy and its instances itself on SIGTERM; a bench stopped by a signal must let it.
  const stopAll = async () => {
    await Promise.all(
      processes
        .splice(0)
        .reverse()
        .map((proc) => proc.stop(30_000)),
    );
    kit.remove();
  };
  const interrupted = () => void stopAll().finally(() => process.exit(130));
  process.once("SIGINT", interrupted).once("SIGTERM", interrupted);
  try {
    const scripts = {
      json: writeWrkScript(kit.binDir, MODEL, false),
      stream: writeWrkScript(kit.binDir, MODEL, true),
    };
    const scriptOf = (load: Load) => (load.stream ? scripts.stream : scripts.json);

    step("front door: one stand-in vLLM alone");
    const alone = await startStandIn(kit);
    const aloneRows = [];
    try {
      for (const load of LOADS) {
        aloneRows.push(await runWrk(alone.url, scriptOf(load), load.callers, settings.secondsPerRow));
      }
    } finally {
      await alone.proc.stop();
    }

    step("front door: launch --instances 2, plain nginx and HAProxy by hand in front of its instances");
    const { launch, doors } = await startDoors(kit, processes);
    const urlOf = (door: Door) => `http://127.0.0.1:${door.port}/v1/chat/completions`;

    const results = new Map<string, WrkResult[]>();
    for (let round = 0; round < settings.rounds; round += 1) {
      step(`front door: round ${round + 1} of ${settings.rounds}`);
      // Each round starts with the next door, so a slow moment of the machine falls on all alike.
      const order = doors.map((_, i) => doors[(i + round) % doors.length] as Door);
      for (const load of LOADS) {
        for (const door of order) {
          const key = `${door.name}|${load.stream}|${load.callers}`;
          const result = await runWrk(urlOf(door), scriptOf(load), load.callers, settings.secondsPerRow);
          results.set(key, [...(results.get(key) ?? []), result]);
        }
      }
    }

    step(`front door: ${settings.manyStreams} concurrent streams`);
    const many = [];
    for (const door of doors) {
      many.push({ door, result: await runWrk(urlOf(door), scripts.stream, settings.manyStreams, 5) });
    }
    step("front door: HAProxy's instructions per request under callgrind");
    const servers = launch.instancePorts.map((instancePort) => `127.0.0.1:${instancePort}`);
    const configs = [
      (listen: number) => haproxyConfig({ servers, listen }),
      (listen: number) => handHaproxyConfig(listen, launch.instancePorts),
    ];
    const counted: string[][] = [];
    for (const stream of [false, true]) {
      const perRequest: number[] = [];
      for (const config of configs)
        perRequest.push(await instructionsPerRequest(config, kit.binDir, MODEL, stream));
      const [front = 0, hand = 0] = perRequest;
      counted.push([
        stream ? "streamed completions" : "JSON completions",
        count(Math.round(front)),
        count(Math.round(hand)),
        ratio(front, hand),
      ]);
    }
    const paced = await measurePacedStreams(kit, settings.paced, step, processes);
    return [
      comparisonSection(results, aloneRows, settings),
      paced,
      manyStreamsSection(many, settings.manyStreams),
      instructionsSection(counted),
    ];
  } finally {
    process.off("SIGINT", interrupted).off("SIGTERM", interrupted);
    await stopAll();
  }
}

async function startStandIn(kit: StandInKit): Promise<{ proc: ManagedProcess; url: string }> {
  const port = await getFreePort();
  const proc = startProcess(kit.standIn, ["serve", MODEL, "--port", String(port)], {
    env: { ...process.env, STAND_IN_CHUNKS: String(CHUNKS_PER_STREAM) },
  });
  try {
    await waitForOutput(proc, /Uvicorn running/, 10_000);
  } catch (error) {
    await proc.stop();
    throw error;
  }
  return { proc, url: `http://127.0.0.1:${port}/v1/chat/completions` };
}

function comparisonSection(
  results: Map<string, WrkResult[]>,
  alone: readonly WrkResult[],
  settings: FrontDoorSettings,
): Section {
  const rows = LOADS.map((load, i) => {
    const of = (door: string) => results.get(`${door}|${load.stream}|${load.callers}`) ?? [];
    const perSecondOf = (runs: readonly WrkResult[]) =>
      median(runs.map((run) => rate(run) * (load.stream ? CHUNKS_PER_STREAM : 1)));
    const p99 = (runs: readonly WrkResult[]) => median(runs.map((run) => run.p99Us / 1000));
    const [ours, nginx, hand] = [of("front door"), of("plain nginx"), of("by hand")];
    const failed = [...ours, ...nginx, ...hand].reduce((sum, run) => sum + run.errors, 0);
    const standIn = alone[i];
    return [
      `${load.name}, ${load.callers} callers`,
      load.stream ? "chunks/s" : "requests/s",
      perSecond(perSecondOf(ours)),
      perSecond(perSecondOf(nginx)),
      perSecond(perSecondOf(hand)),
      ratio(perSecondOf(ours), perSecondOf(nginx)),
      ratio(perSecondOf(ours), perSecondOf(hand)),
      millis(p99(ours)),
      millis(p99(nginx)),
      millis(p99(hand)),
      standIn === undefined ? "" : perSecond(rate(standIn) * (load.stream ? CHUNKS_PER_STREAM : 1)),
      count(failed),
    ];
  });
  return {
    title: "Front door: launch --instances vs plain nginx and HAProxy by hand",
    method: `\`studio-serve launch full ${MODEL} --instances 2\` runs two stand-in vLLMs (C, one thread, epoll, keep-alive; each answer written at once, a stream as ${CHUNKS_PER_STREAM} server-sent events and [DONE] in one write) behind HAProxy with haproxyConfig's configuration, with launch's default routing, \`session\`: wrk's requests carry no session header, so they take the path every request without a session takes. In front of the same two instances: plain nginx as the streaming guides set it up (least_conn, upstream keep-alive, proxy_buffering off, no access log), what users would pick instead; and "by hand", a second HAProxy with a minimal configuration (leastconn, timeouts). wrk (2 threads, keep-alive) sends chat completions for ${settings.secondsPerRow} s per row, the doors rotating, in ${settings.rounds} rounds; medians over rounds. "Alone" is one stand-in without any balancer, measured first: what one instance can answer here. Targets (issues #22, #31 and #33): the front door's rate at least 0.9× plain nginx's and by hand's (plain HAProxy leastconn). wrk, the balancers and the stand-ins share 2 cores.`,
    table: markdownTable(
      [
        "load",
        "unit",
        "front door",
        "plain nginx",
        "by hand",
        "vs nginx",
        "vs by hand",
        "p99 front door",
        "p99 nginx",
        "p99 by hand",
        "one stand-in alone",
        "failed",
      ],
      rows,
      [
        "left",
        "left",
        "right",
        "right",
        "right",
        "right",
        "right",
        "right",
        "right",
        "right",
        "right",
        "right",
      ],
    ),
  };
}

function instructionsSection(rows: readonly string[][]): Section {
  return {
    title: "Front door: HAProxy's instructions per request",
    method:
      "The front door's configuration (haproxyConfig, as launch writes it) and the one by hand, each in HAProxy under valgrind's callgrind on one thread, in front of the same two stand-ins: 500 and then 2,500 chat completions over 16 keep-alive connections, in two runs; the difference of the instruction totals over the 2,000 requests between them is the cost per request, start-up and idle checks left out. A count, not a time: what else runs on the machine does not change it, so it shows what the throughput rows above can only estimate.",
    table: markdownTable(["load", "front door", "by hand", "ratio"], rows, [
      "left",
      "right",
      "right",
      "right",
    ]),
  };
}

function manyStreamsSection(many: readonly { door: Door; result: WrkResult }[], streams: number): Section {
  return {
    title: `Front door: ${streams.toLocaleString("en-US")} concurrent streams`,
    method: `wrk holds ${streams.toLocaleString("en-US")} keep-alive connections, each streaming chat completions one after another for 5 s, through each door. Target (issue #22): no request fails through the front door (its default limits: 1,024 open requests per instance, then HAProxy's queue; 8,192 connections).`,
    table: markdownTable(
      ["door", "streams completed", "chunks/s", "p99", "failed"],
      many.map(({ door, result }) => [
        door.name,
        count(result.requests),
        perSecond(rate(result) * CHUNKS_PER_STREAM),
        millis(result.p99Us / 1000),
        count(result.errors),
      ]),
      ["left", "right", "right", "right", "right"],
    ),
  };
}
