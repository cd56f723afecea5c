// Elastic serving (issue #39): one step load (low, high, low) through `studio-serve launch` over the
// stand-in vLLM on four stand-in GPUs, for a fixed fleet of four, our autoscaler, and production-stack's
// default KEDA policy played on the same fleet (`--scale-rule hpa`: the Kubernetes HPA's rule on
// sum(vllm:num_requests_waiting) with a target of 5 per replica); then sleep mode, which wakes an instance
// instead of starting one. Each run is one launch, watched through its state file.

import { HPA_DEFAULTS } from "@finetune-studio/serve-kit/internal";
import {
  failed,
  groupsStartedAfter,
  holdingAtMost,
  instanceSeconds,
  latencyP95,
  mostHolding,
  servingAbove,
} from "../elastic/fleet-figures.js";
import { autoscalerStart, type FleetReading, watchFleet } from "../elastic/fleet-watch.js";
import { STAND_IN_TIMING, type StandInFleet, startStandInFleet } from "../elastic/stand-in-fleet.js";
import { type LoadRecord, runStepLoad, type Stage } from "../elastic/step-load.js";
import { ratio } from "../format.js";
import type { Section } from "../report.js";
import { markdownTable } from "../table.js";

export interface ElasticSettings {
  /** Low, high, low: the step load every policy gets. */
  readonly step: readonly [Stage, Stage, Stage];
  /** Low, high, low, high: the sleep-mode run, whose second high stage wakes what the low one put to sleep. */
  readonly twoSteps: readonly [Stage, Stage, Stage, Stage];
  /** Our autoscaler's --scale-down-after, a run each: a shorter window frees GPUs sooner and follows lulls. */
  readonly scaleDownAfter: readonly string[];
  /** The sleep-mode run's --scale-down-after (its low stage must outlast it). */
  readonly sleepScaleDownAfter: string;
}

export const fullElastic: ElasticSettings = {
  step: [
    { rate: 1, seconds: 60 },
    { rate: 6, seconds: 120 },
    { rate: 1, seconds: 120 },
  ],
  twoSteps: [
    { rate: 1, seconds: 30 },
    { rate: 6, seconds: 60 },
    { rate: 1, seconds: 60 },
    { rate: 6, seconds: 60 },
  ],
  scaleDownAfter: ["30s", "15s"],
  sleepScaleDownAfter: "15s",
};

export const quickElastic: ElasticSettings = {
  step: [
    { rate: 1, seconds: 20 },
    { rate: 6, seconds: 40 },
    { rate: 1, seconds: 40 },
  ],
  twoSteps: [
    { rate: 1, seconds: 15 },
    { rate: 6, seconds: 30 },
    { rate: 1, seconds: 40 },
    { rate: 6, seconds: 30 },
  ],
  scaleDownAfter: ["10s"],
  sleepScaleDownAfter: "10s",
};

/** The HPA's sync period: the played policy's run starts its load so that the step falls mid-period. */
const HPA_SYNC_MS = HPA_DEFAULTS.syncMs;

interface Policy {
  readonly name: string;
  readonly instances: string;
  readonly more: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
}

interface Run {
  readonly policy: Policy;
  readonly readings: readonly FleetReading[];
  readonly records: readonly LoadRecord[];
  readonly stageStartsMs: readonly number[];
  readonly endMs: number;
  /** When the launch's autoscaler started, on this process's performance.now() clock (its HPA syncs count from it). */
  readonly autoscalerStartMs: number | undefined;
  readonly events: readonly { event: string }[];
}

/**
 * Starts the policy's launch, plays `stages` through it, and stops it (always). With `midSync`, the load
 * starts so that its second stage (the step) falls mid-way between two of the HPA's syncs: the mean over the
 * phases a step can fall at (right after a sync it would wait 15 s, right before one hardly at all).
 */
async function play(policy: Policy, stages: readonly Stage[], midSync = false): Promise<Run> {
  const fleet: StandInFleet = await startStandInFleet(policy.instances, policy.more, policy.env);
  const watch = watchFleet(fleet.dir);
  // Ctrl-C (or SIGTERM) stops the launch as a user's would: its instances drained, its group gone.
  const interrupted = () => void fleet.stop().finally(() => process.exit(130));
  process.once("SIGINT", interrupted).once("SIGTERM", interrupted);
  try {
    const autoscalerStartMs = autoscalerStart(fleet.dir);
    if (midSync && autoscalerStartMs !== undefined) {
      const stepAt = performance.now() + BENCH_START_MS + (stages[0]?.seconds ?? 0) * 1000;
      const lead = modulo(HPA_SYNC_MS / 2 - (stepAt - autoscalerStartMs), HPA_SYNC_MS);
      await new Promise((resolve) => setTimeout(resolve, lead));
    }
    const load = await runStepLoad(fleet.port, stages, fleet.env, fleet.scratch);
    const endMs = performance.now();
    return { policy, readings: watch.stop(), ...load, endMs, autoscalerStartMs, events: fleet.events() };
  } finally {
    process.off("SIGINT", interrupted).off("SIGTERM", interrupted);
    watch.stop();
    await fleet.stop();
  }
}

/** About how long the bench process takes from its start to its first request. */
const BENCH_START_MS = 1_000;

const modulo = (value: number, by: number) => ((value % by) + by) % by;

const seconds = (value: number | null) => (value === null ? "never" : `${value.toFixed(1)} s`);
const ms = (value: number | null) => (value === null ? "-" : `${(value / 1000).toFixed(2)} s`);

export async function measureElastic(
  settings: ElasticSettings,
  step: (message: string) => void,
): Promise<Section[]> {
  return [await stepLoadSection(settings, step), await sleepSection(settings, step)];
}

async function stepLoadSection(settings: ElasticSettings, step: (message: string) => void): Promise<Section> {
  const policies: Policy[] = [
    { name: "fixed fleet of 4", instances: "4", more: [] },
    ...settings.scaleDownAfter.map((after) => ({
      name: `ours, --scale-down-after ${after}`,
      instances: "1..4",
      more: ["--scale-down-after", after],
    })),
    {
      name: "production-stack's KEDA (HPA rule)",
      instances: "1..4",
      more: ["--scale-rule", "hpa", "--scale-on", "queue=5"],
    },
  ];
  const runs: Run[] = [];
  for (const policy of policies) {
    step(`elastic serving: ${policy.name}`);
    runs.push(await play(policy, settings.step, policy.more.includes("hpa")));
  }
  const figures = runs.map((run) => stepFigures(run, settings));
  const fixed = figures[0] as StepFigures;
  const rows = figures.map((one) => [
    one.syncPhase === undefined ? one.name : `${one.name}, step ${one.syncPhase.toFixed(1)} s after a sync`,
    `${one.instanceSeconds.toFixed(0)} (${ratio(one.instanceSeconds, fixed.instanceSeconds)})`,
    `${ms(one.p95SecondHalf)} (${one.p95SecondHalf === null || fixed.p95SecondHalf === null ? "-" : ratio(one.p95SecondHalf, fixed.p95SecondHalf)})`,
    ms(one.p95Run),
    one.name === fixed.name ? "-" : seconds(one.firstAdded),
    one.name === fixed.name ? "-" : seconds(one.backToOne),
    String(one.most),
    `${one.failed} of ${one.sent}`,
  ]);
  const [low, high, after] = settings.step;
  return {
    title: "Elastic serving: a step load, a fixed fleet, our autoscaler and production-stack's KEDA policy",
    method: `\`studio-serve launch full MODEL --max-num-seqs 2\` over the CLI's stand-in vLLM with vLLM's capacity model (two requests at once, ${STAND_IN_TIMING.FAKE_VLLM_TOKEN_MS} ms a token, ${Number(STAND_IN_TIMING.FAKE_VLLM_LOAD_MS) / 1000} s to load) on four stand-in GPUs, behind the real HAProxy. \`studio-serve bench --launch P --stages\` sends Poisson arrivals, the same in every run (\`--seed 1\`): ${low.rate}/s for ${low.seconds} s, ${high.rate}/s for ${high.seconds} s, ${after.rate}/s for ${after.seconds} s; each request has about 32 prompt tokens and exactly 40 answer tokens (1 s of decoding), so one instance serves about 2 requests a second and the high stage needs three to four. The policies: a fixed fleet of four (\`--instances 4\`); ours (\`--instances 1..4\`, its default \`--scale-on queue=5,kv=0.8\`, and \`--scale-down-after\` ${settings.scaleDownAfter.join(" or ")}: its default, 5 minutes, would hold the fleet as long as the HPA's stabilization does); production-stack's default KEDA policy played on the same fleet (\`--scale-rule hpa --scale-on queue=5\`: its tutorial's trigger, 5 waiting per replica, through the Kubernetes HPA's rule, a sync every 15 s, 300 s scale-down stabilization, at most max(2×, +4) up per sync; it reads live signals, so Prometheus's scrape interval and a pod's scheduling are left out: the policy at its best), its load started so that the step falls mid-way between two syncs. Instance-seconds count instances holding GPUs (starting, serving or draining) from the first request to the end of the last stage, read from the launch's state file every 200 ms. p95 is end-to-end latency of the requests sent in the second half of the high stage (ratio to the fixed fleet's), then over the whole run. Targets (issue #39): ours at most 0.6× the fixed fleet's instance-seconds with that p95 at most 1.5× the fixed fleet's; against the KEDA policy, the first added instance serving sooner, fewer instance-seconds, no worse p95.`,
    table: markdownTable(
      [
        "policy",
        "instance-seconds (vs fixed)",
        "p95, 2nd half of high (vs fixed)",
        "p95, whole run",
        "first added serves",
        "back to 1 after high",
        "most at once",
        "failed",
      ],
      rows,
    ),
  };
}

interface StepFigures {
  name: string;
  /** Seconds from the HPA's last sync before the step to the step; undefined for the other rules. */
  syncPhase: number | undefined;
  instanceSeconds: number;
  p95SecondHalf: number | null;
  p95Run: number | null;
  firstAdded: number | null;
  backToOne: number | null;
  most: number;
  failed: number;
  sent: number;
}

function stepFigures(run: Run, settings: ElasticSettings): StepFigures {
  const [startMs, highMs, lowAgainMs] = run.stageStartsMs as [number, number, number];
  const endMs = lowAgainMs + settings.step[2].seconds * 1000;
  const halfMs = highMs + (settings.step[1].seconds * 1000) / 2;
  const hpa = run.policy.more.includes("hpa") && run.autoscalerStartMs !== undefined;
  return {
    name: run.policy.name,
    syncPhase: hpa ? modulo(highMs - (run.autoscalerStartMs as number), HPA_SYNC_MS) / 1000 : undefined,
    instanceSeconds: instanceSeconds(run.readings, startMs, endMs),
    p95SecondHalf: latencyP95(run.records, halfMs, lowAgainMs),
    p95Run: latencyP95(run.records, startMs, endMs),
    firstAdded: servingAbove(run.readings, highMs, 1),
    backToOne: holdingAtMost(run.readings, lowAgainMs, 1),
    most: mostHolding(run.readings),
    failed: failed(run.records),
    sent: run.records.length,
  };
}

async function sleepSection(settings: ElasticSettings, step: (message: string) => void): Promise<Section> {
  const coldStart = { FAKE_VLLM_LOAD_MS: "8000" };
  const base = ["--scale-down-after", settings.sleepScaleDownAfter];
  const policies: Policy[] = [
    { name: "--idle sleep", instances: "1..4", more: [...base, "--idle", "sleep"], env: coldStart },
    { name: "--idle stop", instances: "1..4", more: base, env: coldStart },
  ];
  const rows: string[][] = [];
  for (const policy of policies) {
    step(`elastic serving, sleep mode: ${policy.name}`);
    const run = await play(policy, settings.twoSteps);
    const [, firstHigh, , secondHigh] = run.stageStartsMs as [number, number, number, number];
    rows.push([
      policy.name,
      seconds(servingAbove(run.readings, firstHigh, 1)),
      seconds(servingAbove(run.readings, secondHigh, 1)),
      String(groupsStartedAfter(run.readings, secondHigh).length),
      String(run.events.filter((one) => one.event === "chat-while-asleep").length),
      `${failed(run.records)} of ${run.records.length}`,
    ]);
  }
  const stages = settings.twoSteps.map((one) => `${one.rate}/s for ${one.seconds} s`).join(", ");
  return {
    title: "Elastic serving: waking a sleeping instance instead of starting one",
    method: `The same fleet with an 8 s cold start (FAKE_VLLM_LOAD_MS=8000) and \`--instances 1..4 --scale-down-after ${settings.sleepScaleDownAfter}\`, under two steps: ${stages}. With \`--idle sleep\` an instance the low stage scales down sleeps (vLLM's \`POST /sleep?level=1\`; the stand-in takes 200 ms to sleep and 500 ms to wake) and the second step wakes it; with \`--idle stop\` it is stopped and the second step starts one cold. "Processes started" counts instance process groups that first appear in the second high stage; "requests to a sleeping instance" counts the chat requests a stand-in received while asleep (vLLM's engine fails them). Target (issue #39): with sleep, the extra instance serves again within 10 s of the new load, no new process starts, and no request reaches a sleeping instance.`,
    table: markdownTable(
      [
        "idle",
        "first step: added instance serves",
        "second step: added instance serves",
        "processes started in the second step",
        "requests to a sleeping instance",
        "failed",
      ],
      rows,
    ),
  };
}
