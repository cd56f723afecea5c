// Streams paced as vLLM sends tokens (a chunk every PACE_MS), through each door in front of the same two
// paced stand-ins, interleaved in rounds: what a caller waits for the first token. A balancer that holds
// back an unfinished response (HAProxy without `option http-no-delay`) shows here, not in wrk's totals.
import type { ManagedProcess } from "@finetune-studio/testing";
import { count, millis, perSecond, ratio } from "../format.js";
import { type Door, MODEL, startDoors } from "../front-door/doors.js";
import type { StandInKit } from "../front-door/stand-ins.js";
import { runStreamClient, type StreamClientResult } from "../front-door/stream-client.js";
import type { Section } from "../report.js";
import { median } from "../stats.js";
import { markdownTable } from "../table.js";

const PACE_MS = 5;
/**
 * The front door's limits, given to launch and copied by hand into a second HAProxy: launch's defaults for
 * two instances where the GPU cannot be told (vLLM's 1,024 sequences each, four times their sum). With 256
 * callers HAProxy queues nothing (256 < 2 x 1,024) and holds far fewer connections than it may.
 */
const PACED_LIMITS = { maxNumSeqs: 1024, maxConnections: 8192 };

export interface PacedSettings {
  rounds: number;
  secondsPerRow: number;
  callers: readonly number[];
}

export const fullPaced: PacedSettings = { rounds: 4, secondsPerRow: 3, callers: [16, 64, 256] };
export const quickPaced: PacedSettings = { rounds: 1, secondsPerRow: 1, callers: [16, 256] };

export async function measurePacedStreams(
  kit: StandInKit,
  settings: PacedSettings,
  step: (message: string) => void,
  processes: ManagedProcess[],
): Promise<Section> {
  step(`paced streams: launch --instances 2 of stand-ins that send a chunk every ${PACE_MS} ms`);
  const { launch, doors: balancers } = await startDoors(
    kit,
    processes,
    { STAND_IN_PACE_MS: String(PACE_MS) },
    PACED_LIMITS,
  );
  const doors: Door[] = [...balancers, { name: "one instance directly", port: launch.instancePorts[0] ?? 0 }];
  const results = new Map<string, StreamClientResult[]>();
  for (let round = 0; round < settings.rounds; round += 1) {
    step(`paced streams: round ${round + 1} of ${settings.rounds}`);
    // Each round starts with the next door, so a slow moment of the machine falls on all alike.
    const order = doors.map((_, i) => doors[(i + round) % doors.length] as Door);
    for (const callers of settings.callers) {
      for (const door of order) {
        const key = `${door.name}|${callers}`;
        const result = await runStreamClient(
          kit.streamClient,
          door.port,
          callers,
          settings.secondsPerRow,
          MODEL,
        );
        results.set(key, [...(results.get(key) ?? []), result]);
      }
    }
  }
  return pacedSection(doors, results, settings);
}

function pacedSection(
  doors: readonly Door[],
  results: Map<string, StreamClientResult[]>,
  settings: PacedSettings,
): Section {
  const rows: string[][] = [];
  for (const callers of settings.callers) {
    const nginx = results.get(`plain nginx|${callers}`) ?? [];
    const nginxP99 = median(nginx.map((run) => run.firstP99Us));
    const nginxStreams = median(nginx.map(streamsPerSecond));
    for (const door of doors) {
      const runs = results.get(`${door.name}|${callers}`) ?? [];
      const p99 = median(runs.map((run) => run.firstP99Us));
      const streams = median(runs.map(streamsPerSecond));
      rows.push([
        `${callers} callers`,
        door.name,
        perSecond(streams),
        perSecond(median(runs.map((run) => run.events / (run.durationUs / 1e6)))),
        millis(median(runs.map((run) => run.firstP50Us)) / 1000),
        millis(p99 / 1000),
        ratio(p99, nginxP99),
        ratio(streams, nginxStreams),
        count(runs.reduce((sum, run) => sum + run.failures, 0)),
      ]);
    }
  }
  return {
    title: "Front door: paced streams, time to the first chunk",
    method: `Two stand-in vLLMs that stream as vLLM generates (the first chunk at once, then one every ${PACE_MS} ms, 16 in all) behind \`launch --instances 2\`'s HAProxy ("front door"), behind plain nginx as the streaming guides set it up (least_conn, upstream keep-alive, proxy_buffering off), behind HAProxy by hand ("by hand": leastconn and timeouts only, so each unfinished response waits on MSG_MORE), behind HAProxy with the front door's limits by hand ("same limits by hand": the same ${PACED_LIMITS.maxNumSeqs} requests per instance and ${PACED_LIMITS.maxConnections} connections, given to launch too, timeouts, \`option http-no-delay\` and \`http-reuse always\`, and none of the front door's health checks, routing or control-endpoint rules: HAProxy's own floor under those limits), and one of them called directly. A C client (stream-client.c, epoll, keep-alive) holds the callers' connections, each streaming one chat completion after another for ${settings.secondsPerRow} s per row, and times each stream's first event; the doors rotate in ${settings.rounds} rounds, medians over rounds. "vs nginx" divides by plain nginx's figure in the same row group. Targets (issue #31): the front door's first-chunk p99 at most 1.2× plain nginx's; its streams/s at least 0.9× plain nginx's. The client, the balancers and the stand-ins share 2 cores.`,
    table: markdownTable(
      [
        "load",
        "door",
        "streams/s",
        "chunks/s",
        "first chunk p50",
        "first chunk p99",
        "p99 vs nginx",
        "streams/s vs nginx",
        "failed",
      ],
      rows,
      ["left", "left", "right", "right", "right", "right", "right", "right", "right"],
    ),
  };
}

function streamsPerSecond(run: StreamClientResult): number {
  return run.streams / (run.durationUs / 1e6);
}
