import { join } from "node:path";
import { escapeForTerminal } from "@finetune-studio/internal";
import {
  DEFAULT_PROMETHEUS_RULES_FILE,
  type PrometheusConfigOptions,
  type PrometheusThresholds,
  prometheusConfig,
  prometheusRules,
} from "@finetune-studio/serve-kit";
import { DEFAULT_SCRAPE_INTERVAL_SECONDS, THRESHOLD_DEFAULTS } from "@finetune-studio/serve-kit/internal";
import { type CommandArgs, parseCommand, synopsisOf, usageLines } from "../shared/command-args.js";
import {
  JOB_FLAG,
  LAUNCH_FLAG,
  OBJECTIVE_FLAG,
  OBJECTIVE_NEEDS_SLO,
  OUT_FLAG,
  SLO_FLAG,
} from "../shared/common-flags.js";
import { ExitCode } from "../shared/exit-codes.js";
import { describedAs, flagHelp, listFlag, type ParsedFlags, textFlag } from "../shared/flags.js";
import { type CliIo, UsageError } from "../shared/io.js";
import { numberOrRaw } from "../shared/raw-values.js";
import { FileWriteError, writeFilesTogether } from "../shared/safe-files.js";
import { scrapeTarget } from "../shared/values.js";
import { launchUrls } from "../status/launch-urls.js";
import type { CliCommand } from "./command-type.js";

/** Each threshold flag, the builder field it sets, and its help (the builder checks the value). */
const THRESHOLDS = [
  ["waiting", "waitingRequests", "N", "waiting requests that count as queueing"],
  ["kv-cache", "kvCacheUsage", "F", "KV-cache usage, as a share, above which the cache is nearly full"],
  ["ttft-p95", "ttftP95Seconds", "S", "seconds of time to first token, p95, that is too slow"],
  ["error-ratio", "errorFinishRatio", "F", "share of requests finishing as error or abort that alerts"],
  ["for", "forMinutes", "M", "minutes a condition must last before it alerts"],
  ["down-for", "downForMinutes", "M", "minutes an instance must be down before it alerts"],
] as const satisfies readonly (readonly [string, keyof PrometheusThresholds, string, string])[];

/** `--target URL`: an instance to scrape, written as `status` and `bench` take a server (its host:port kept). */
const TARGET_FLAG = listFlag("target", {
  valueName: "host:port",
  help: "a vLLM instance ([addr]:port for IPv6, or its URL as status takes it);\nrepeat for each",
  field: "targets",
});
const SCRAPE_INTERVAL_FLAG = textFlag("scrape-interval", {
  valueName: "S",
  help: "seconds between scrapes",
  field: "scrapeIntervalSeconds",
  shows: DEFAULT_SCRAPE_INTERVAL_SECONDS,
});
const PROMETHEUS_LAUNCH_FLAG = describedAs(
  LAUNCH_FLAG,
  "every instance of the `launch` serving on port P, and its front door",
);
const PROMETHEUS_OUT_FLAG = describedAs(
  OUT_FLAG,
  `write prometheus.yml and ${DEFAULT_PROMETHEUS_RULES_FILE} into DIR`,
);
const CONFIG_FLAGS = [
  TARGET_FLAG,
  PROMETHEUS_LAUNCH_FLAG,
  PROMETHEUS_OUT_FLAG,
  SCRAPE_INTERVAL_FLAG,
  JOB_FLAG,
];
const THRESHOLD_FLAGS = THRESHOLDS.map(([flag, field, valueName, help]) => ({
  field,
  flag: textFlag(flag, { valueName, help, field: `thresholds.${field}`, shows: THRESHOLD_DEFAULTS[field] }),
}));
const PROMETHEUS_SLO_FLAG = describedAs(
  SLO_FLAG,
  "add recording rules for the share of requests within each target,\nand burn-rate alerts (bench --slo's syntax)",
);
const FLAGS = [
  ...CONFIG_FLAGS,
  ...THRESHOLD_FLAGS.map(({ flag }) => flag),
  PROMETHEUS_SLO_FLAG,
  OBJECTIVE_FLAG,
];

/** `studio-serve prometheus`'s command line: the instances to scrape, by --target or --launch. */
const PROMETHEUS_ARGS: CommandArgs = {
  name: "prometheus",
  positionals: [],
  flags: FLAGS,
  required: {
    args: [TARGET_FLAG, PROMETHEUS_LAUNCH_FLAG],
    missing: "name the instances: --target host:port (repeat for each), or --launch P",
  },
  needs: [OBJECTIVE_NEEDS_SLO],
};

const CONFIG_FILE = "prometheus.yml";

/** `studio-serve prometheus`: the scrape config and alerting rules for vLLM instances, printed or written. */
async function runPrometheus(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseCommand(args, PROMETHEUS_ARGS);
  if (parsed.help) {
    io.out(HELP);
    return ExitCode.Ok;
  }
  // The builders check every value; their errors name the field, which run.ts reports as the flag. The
  // rules are built before the launch is asked for its instances: bad input stops before any request.
  const rules = rulesOf(parsed);
  const named = parsed.get(TARGET_FLAG).map((text, index) => scrapeTarget(text, `--target #${index + 1}`));
  const launched = await launchTargets(parsed.get(LAUNCH_FLAG), io);
  const job = parsed.get(JOB_FLAG);
  const interval = parsed.get(SCRAPE_INTERVAL_FLAG);
  const config = prometheusConfig({
    targets: [...new Set([...named, ...launched.instances])],
    ...launched.discovered,
    ...(interval === undefined ? {} : { scrapeIntervalSeconds: numberOrRaw(interval) as number }),
    ...(job === undefined ? {} : { jobName: job }),
  });
  const out = parsed.get(OUT_FLAG);
  if (out === undefined) {
    io.out(`# ${CONFIG_FILE}\n${config}---\n# ${DEFAULT_PROMETHEUS_RULES_FILE}\n${rules}`);
    return ExitCode.Ok;
  }
  return writeBoth(out, config, rules, io);
}

/** The alerting rules (and with --slo the SLO rules) the flags ask for, checked by the builder. */
function rulesOf(parsed: ParsedFlags): string {
  const thresholds: Record<string, unknown> = {};
  for (const { field, flag } of THRESHOLD_FLAGS) {
    const value = parsed.get(flag);
    if (value !== undefined) thresholds[field] = numberOrRaw(value);
  }
  const job = parsed.get(JOB_FLAG);
  const slo = parsed.get(SLO_FLAG);
  const objective = parsed.get(OBJECTIVE_FLAG);
  return prometheusRules({
    thresholds: thresholds as PrometheusThresholds,
    ...(job === undefined ? {} : { jobName: job }),
    ...(slo === undefined ? {} : { slo }),
    ...(objective === undefined ? {} : { objective: numberOrRaw(objective) as number }),
  });
}

/** Both files or neither: a prometheus.yml whose rules file is missing or stale would be worse than none. */
function writeBoth(out: string, config: string, rules: string, io: CliIo): number {
  try {
    const files = [
      { name: CONFIG_FILE, text: config },
      { name: DEFAULT_PROMETHEUS_RULES_FILE, text: rules },
    ];
    writeFilesTogether(out, files, "shared"); // No secret in them, and Prometheus's own user must read them.
  } catch (error) {
    if (!(error instanceof FileWriteError)) throw error;
    io.err(`studio-serve: --out: ${escapeForTerminal(error.message)}\n`);
    return ExitCode.Failure;
  }
  io.out(`${join(out, CONFIG_FILE)}\n${join(out, DEFAULT_PROMETHEUS_RULES_FILE)}\n`);
  io.err(
    `studio-serve: wrote ${CONFIG_FILE} and ${DEFAULT_PROMETHEUS_RULES_FILE} in ${out}; check them with ` +
      `promtool check config ${join(out, CONFIG_FILE)}, then run prometheus --config.file=${join(out, CONFIG_FILE)}\n`,
  );
  return ExitCode.Ok;
}

/**
 * The instances (host:port) of the launch serving on `port`, read as `status --launch` reads them, and what the
 * config finds on its own: its front door, and an elastic launch's file of instances (they come and go).
 */
async function launchTargets(
  port: number | undefined,
  io: CliIo,
): Promise<{
  instances: string[];
  discovered: Pick<PrometheusConfigOptions, "frontDoorTargets" | "targetFiles">;
}> {
  if (port === undefined) return { instances: [], discovered: {} };
  const launch = await launchUrls(port, io);
  if (launch === undefined) throw new UsageError(`--launch: no launch runs on port ${port} for this user`);
  if (launch.killed !== undefined) io.err(`studio-serve: ${launch.killed}\n`);
  const discovered = {
    ...(launch.frontDoorMetrics === undefined ? {} : { frontDoorTargets: [launch.frontDoorMetrics] }),
    ...(launch.targetsFile === undefined ? {} : { targetFiles: [launch.targetsFile] }),
  };
  const instances = launch.targetsFile === undefined ? launch.urls.map((url) => new URL(url).host) : [];
  return { instances, discovered };
}

const HELP = `studio-serve prometheus: a Prometheus scrape config and alerting rules for vLLM instances.

${usageLines(PROMETHEUS_ARGS)}

Prints prometheus.yml and the rules file it loads (${DEFAULT_PROMETHEUS_RULES_FILE}), or with --out
writes both into DIR. The rules alert when an instance is down, its waiting queue stays long and does
not shrink, its KV cache is nearly full, time to first token p95 is too high, or requests finish as
error or abort more than they should. With --launch P, the instances of the launch on port P are
scraped (job vllm) and so is its front door's HAProxy (job front-door). With --slo, the rules also
record the share of requests within each target, per instance and for the fleet, and alert when the
error budget burns fast (1 h and 5 min windows) or slowly (6 h and 30 min).

Options:
${flagHelp(FLAGS)}

vLLM's /metrics is not guarded by --api-key: keep the instances' ports off public networks and let
Prometheus reach them on a private one.

Example:
  studio-serve prometheus --launch 8000 --slo ttft=500ms,tpot=50ms --out ./monitoring
  prometheus --config.file=./monitoring/prometheus.yml
`;

export const prometheus: CliCommand = {
  name: "prometheus",
  synopsis: [synopsisOf(PROMETHEUS_ARGS, "write a Prometheus config and alerts for instances or a launch")],
  help: HELP,
  flags: FLAGS,
  run: runPrometheus,
};
