import { jsonForTerminal } from "@finetune-studio/internal";
import { type MetricsScrape, sloTargets } from "@finetune-studio/serve-kit";
import { checkObjective } from "@finetune-studio/serve-kit/internal";
import { sleep } from "../shared/abortable-sleep.js";
import { readApiKey } from "../shared/api-key.js";
import {
  type CommandArgs,
  parseCommand,
  positional,
  synopsisOf,
  usageLines,
} from "../shared/command-args.js";
import {
  API_KEY_ENV_FLAG,
  JSON_FLAG,
  LAUNCH_FLAG,
  OBJECTIVE_FLAG,
  OBJECTIVE_NEEDS_SLO,
  SLO_FLAG,
} from "../shared/common-flags.js";
import { ExitCode, exitCodeHelp } from "../shared/exit-codes.js";
import {
  countFlag,
  describedAs,
  flagHelp,
  type ParsedFlags,
  secondsFlag,
  switchFlag,
} from "../shared/flags.js";
import { untilInterrupted } from "../shared/interrupt.js";
import { type CliIo, UsageError } from "../shared/io.js";
import { messageOf } from "../shared/messages.js";
import { numberOrRaw } from "../shared/raw-values.js";
import { serverUrl } from "../shared/values.js";
import { behindFrontDoor, launchUrls } from "../status/launch-urls.js";
import { type InstanceStatus, type ProbeOptions, probeInstance } from "../status/status-probe.js";
import { formatStatusTable } from "../status/status-table.js";
import type { CliCommand } from "./command-type.js";

const WATCH_FLAG = switchFlag("watch", "redraw the table every interval until Ctrl-C");
const COUNT_FLAG = countFlag("count", {
  min: 1,
  max: 1_000_000,
  help: "with --watch: stop after N refreshes",
});
const INTERVAL_FLAG = secondsFlag("interval", {
  min: 1,
  max: 3600,
  fallback: 2,
  help: "seconds between the two reads, and between refreshes",
});
const TIMEOUT_FLAG = secondsFlag("timeout", {
  min: 1,
  max: 120,
  fallback: 5,
  help: "seconds each look at an instance may take, its /health, /v1/models and\n/metrics reads together; one look never waits longer",
});
const STATUS_LAUNCH_FLAG = describedAs(
  LAUNCH_FLAG,
  "also every instance of the `launch` serving on port P (one, or N)",
);
/** The servers to read, by their URLs. */
const URLS_ARG = positional("URL", "a server's root, e.g. http://127.0.0.1:8000 (or its /v1 base URL)", true);
const FLAGS = [
  STATUS_LAUNCH_FLAG,
  WATCH_FLAG,
  COUNT_FLAG,
  INTERVAL_FLAG,
  TIMEOUT_FLAG,
  describedAs(JSON_FLAG, "JSON for scripts (with --watch, one JSON object per line and refresh)"),
  describedAs(
    SLO_FLAG,
    "show the share of each instance's requests between the two reads within each\ntarget (bench --slo's syntax; counted from vLLM's histogram buckets)",
  ),
  describedAs(OBJECTIVE_FLAG, "with --slo: the share each instance should reach"),
  describedAs(
    API_KEY_ENV_FLAG,
    "the key vLLM was started with, for /v1/models; sent only over https or to\nthis machine",
  ),
];

/** `studio-serve status`'s command line: the servers (or a launch), the flags, and how they go together. */
const STATUS_ARGS: CommandArgs = {
  name: "status",
  positionals: [URLS_ARG],
  flags: FLAGS,
  required: {
    args: [URLS_ARG, STATUS_LAUNCH_FLAG],
    missing: "name at least one server URL, e.g. http://127.0.0.1:8000, or --launch P",
  },
  needs: [{ flag: COUNT_FLAG, needs: WATCH_FLAG, verb: "goes with" }, OBJECTIVE_NEEDS_SLO],
};

/** Clears the terminal and puts the cursor home, so --watch redraws the table in place. */
const REDRAW = "\u001b[H\u001b[2J";

/** What `status` was asked, every flag read by its declaration before any request is sent. */
interface StatusAsked {
  given: string[];
  launchPort: number | undefined;
  intervalMs: number;
  intervalSeconds: number;
  count: number | undefined;
  watch: boolean;
  json: boolean;
  objective: number | undefined;
  options: ProbeOptions;
}

/** `studio-serve status URL...`: up or down, models and adapters, and the load of each vLLM instance. */
async function runStatus(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseCommand(args, STATUS_ARGS);
  if (parsed.help) {
    io.out(HELP);
    return ExitCode.Ok;
  }
  const asked = readStatus(parsed, io);
  const launched = asked.launchPort === undefined ? [] : await instancesOf(asked.launchPort, io);
  if (asked.given.length === 0 && launched.length === 0)
    throw new UsageError("name at least one server URL, e.g. http://127.0.0.1:8000, or --launch P");
  const behind = await Promise.all(asked.given.map((url) => behindFrontDoor(url, io)));
  const urls = [...new Set([...behind.flat(), ...launched])];
  return untilInterrupted((signal) => showStatus(urls, asked, signal, io));
}

function readStatus(parsed: ParsedFlags, io: CliIo): StatusAsked {
  const given = parsed.positionals.map((text, index) => serverUrl(text, `URL #${index + 1}`));
  const apiKey = readApiKey(parsed.get(API_KEY_ENV_FLAG), io.env);
  const sloText = parsed.get(SLO_FLAG);
  const objectiveText = parsed.get(OBJECTIVE_FLAG);
  // serve-kit's rules (bench's parser); their errors name the field, which run.ts reports as the flag.
  const slo = sloText === undefined ? undefined : sloTargets(sloText);
  const objective = slo === undefined ? undefined : checkObjective(numberOrRaw(objectiveText));
  const intervalSeconds = parsed.get(INTERVAL_FLAG);
  return {
    given,
    launchPort: parsed.get(LAUNCH_FLAG),
    intervalSeconds,
    intervalMs: intervalSeconds * 1000,
    count: parsed.get(COUNT_FLAG),
    watch: parsed.get(WATCH_FLAG),
    json: parsed.get(JSON_FLAG),
    objective,
    options: {
      timeoutMs: parsed.get(TIMEOUT_FLAG) * 1000,
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(slo === undefined ? {} : { slo }),
    },
  };
}

/**
 * Reads every instance twice, an interval apart (the first look only gives counters, the second rates over
 * that time), and shows the table once, or again every interval with --watch, until stopped.
 */
async function showStatus(urls: string[], asked: StatusAsked, signal: AbortSignal, io: CliIo) {
  const refresh = lookAgain(urls, asked.options);
  let statuses = await refresh();
  if (refresh.hasCounters()) {
    if (!(await sleep(asked.intervalMs, signal))) return ExitCode.Ok;
    statuses = await refresh();
  }
  const { objective } = asked;
  if (!asked.watch) {
    const shown = asked.json
      ? `${jsonForTerminal({ ...withObjective(objective), instances: statuses }, 2)}\n`
      : formatStatusTable(statuses, objective);
    io.out(shown);
    return allUp(statuses);
  }
  for (let shown = 1; ; shown++) {
    const time = new Date().toISOString();
    if (asked.json)
      io.out(`${jsonForTerminal({ time, ...withObjective(objective), instances: statuses })}\n`);
    else io.out(`${REDRAW}${watchHeader(asked.intervalSeconds)}\n${formatStatusTable(statuses, objective)}`);
    if (asked.count !== undefined && shown >= asked.count) return allUp(statuses);
    if (!(await sleep(asked.intervalMs, signal))) return ExitCode.Ok;
    statuses = await refresh();
    if (signal.aborted) return ExitCode.Ok;
  }
}

/** One look at every instance, each against its scrape of the look before (rates over the interval). */
function lookAgain(urls: readonly string[], options: ProbeOptions) {
  const previous = new Map<string, MetricsScrape>();
  const refresh = async () => {
    const results = await Promise.all(urls.map((url) => probeWithin(url, options, previous.get(url))));
    previous.clear();
    results.forEach((result, index) => {
      const url = urls[index];
      if (url !== undefined && result.scrape !== undefined) previous.set(url, result.scrape);
    });
    return results.map((result) => result.status);
  };
  return Object.assign(refresh, { hasCounters: () => previous.size > 0 });
}

/**
 * One look at an instance: /health, /v1/models and /metrics share one deadline of --timeout, so a server
 * that answers each read just in time cannot stretch it; and whatever goes wrong with one instance is
 * reported for that instance while the others are still shown.
 */
async function probeWithin(
  url: string,
  options: ProbeOptions,
  earlier: MetricsScrape | undefined,
): Promise<{ status: InstanceStatus; scrape: MetricsScrape | undefined }> {
  try {
    return await probeInstance(url, { ...options, signal: AbortSignal.timeout(options.timeoutMs) }, earlier);
  } catch (error) {
    const detail = `could not be read: ${messageOf(error)}`;
    return { status: { url, state: "garbage", detail, models: null, metrics: null }, scrape: undefined };
  }
}

/** The root URLs of the instances the launch on `port` manages (one, or a fleet's), for --launch P. */
async function instancesOf(port: number, io: CliIo): Promise<string[]> {
  const launch = await launchUrls(port, io);
  if (launch === undefined) {
    throw new UsageError(`--launch: no launch runs on port ${port} for this user`);
  }
  if (launch.killed !== undefined) io.err(`studio-serve: ${launch.killed}\n`);
  if (launch.lifeCycle !== undefined) io.err(`studio-serve: ${launch.lifeCycle}\n`);
  if (launch.frontDoorMetrics !== undefined) {
    io.err(
      `studio-serve: the front door's own metrics (HAProxy's, for Prometheus): http://${launch.frontDoorMetrics}/metrics\n`,
    );
  }
  return launch.urls.map((line, index) => serverUrl(line, `--launch instance #${index + 1}`));
}

function withObjective(objective: number | undefined) {
  return objective === undefined ? {} : { sloObjective: objective };
}

function allUp(statuses: readonly InstanceStatus[]): number {
  return statuses.every((status) => status.state === "up") ? ExitCode.Ok : ExitCode.Failure;
}

function watchHeader(intervalSeconds: number): string {
  const time = new Date().toTimeString().slice(0, 8);
  return `studio-serve status at ${time}, every ${intervalSeconds} s (Ctrl-C stops)\n`;
}

const HELP = `studio-serve status: is each vLLM instance up, what it serves, and how loaded it is.

${usageLines(STATUS_ARGS)}

URL is a server's root, e.g. http://127.0.0.1:8000 (or 127.0.0.1:8000, or the base URL clients use,
http://127.0.0.1:8000/v1). For each instance it reads /health, /v1/models (the model and its LoRA
adapters) and /metrics twice, an interval apart: requests running and waiting, KV-cache usage, prompt
and generated tokens per second, time to first token and end-to-end latency (p50/p95 of the requests
finished in between, else since the start), preemptions, and the adapters in the running batch. An
instance that refuses connections (stopped, or still loading its weights), does not answer in time, or
answers something other than vLLM is shown as such.
Each instance is read on its own: the front door of a launch on this machine stands for its instances
(as --launch P), and a URL whose /metrics reads come from more than one process (by vLLM's
process_start_time_seconds: a balancer, or a restart between reads) is shown as mixed, without numbers.

Options:
${flagHelp(FLAGS)}

${exitCodeHelp("status")}
`;

export const status: CliCommand = {
  name: "status",
  synopsis: [synopsisOf(STATUS_ARGS, "show whether instances are up, and their load")],
  help: HELP,
  flags: FLAGS,
  run: runStatus,
};
