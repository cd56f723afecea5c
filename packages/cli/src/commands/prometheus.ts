import { join } from "node:path";
import { escapeForTerminal } from "@finetune-studio/internal";
import {
  DEFAULT_PROMETHEUS_RULES_FILE,
  type PrometheusThresholds,
  prometheusConfig,
  prometheusRules,
} from "@finetune-studio/serve-kit";
import { OUT_FLAG } from "../shared/common-flags.js";
import { ExitCode } from "../shared/exit-codes.js";
import { describedAs, flagHelp, listFlag, parseFlags, refuseExtraWords, textFlag } from "../shared/flags.js";
import type { CliIo } from "../shared/io.js";
import { numberOrRaw } from "../shared/raw-values.js";
import { FileWriteError, writeFilesTogether } from "../shared/safe-files.js";
import type { CliCommand } from "./command-type.js";

/** Each threshold flag, the builder field it sets, and its help (the builder checks the value). */
const THRESHOLDS = [
  ["waiting", "waitingRequests", "N", "waiting requests that count as queueing (default 10)"],
  [
    "kv-cache",
    "kvCacheUsage",
    "F",
    "KV-cache share, above 0 and at most 1, that is nearly full (default 0.9)",
  ],
  ["ttft-p95", "ttftP95Seconds", "S", "seconds of time to first token, p95, that is too slow (default 2)"],
  [
    "error-ratio",
    "errorFinishRatio",
    "F",
    "share of requests finishing as error or abort that alerts (default 0.05)",
  ],
  ["for", "forMinutes", "M", "minutes a condition must last before it alerts (default 5)"],
  ["down-for", "downForMinutes", "M", "minutes an instance must be down before it alerts (default 1)"],
] as const satisfies readonly (readonly [string, keyof PrometheusThresholds, string, string])[];

const TARGET_FLAG = listFlag("target", {
  valueName: "host:port",
  help: "a vLLM instance ([addr]:port for IPv6); repeat for each",
  field: "targets",
});
const CONFIG_FLAGS = [
  TARGET_FLAG,
  describedAs(OUT_FLAG, `write prometheus.yml and ${DEFAULT_PROMETHEUS_RULES_FILE} into DIR`),
  textFlag("scrape-interval", {
    valueName: "S",
    help: "seconds between scrapes (default 15)",
    field: "scrapeIntervalSeconds",
  }),
  textFlag("job", { valueName: "NAME", help: "the scrape job's name (default vllm)", field: "jobName" }),
];
const THRESHOLD_FLAGS = THRESHOLDS.map(([flag, field, valueName, help]) =>
  textFlag(flag, { valueName, help, field: `thresholds.${field}` }),
);
const FLAGS = [...CONFIG_FLAGS, ...THRESHOLD_FLAGS];

const CONFIG_FILE = "prometheus.yml";

/** `studio-serve prometheus`: the scrape config and alerting rules for vLLM instances, printed or written. */
function runPrometheus(args: readonly string[], io: CliIo): number {
  const parsed = parseFlags(args, FLAGS);
  if (parsed.help) {
    io.out(HELP);
    return ExitCode.Ok;
  }
  refuseExtraWords(parsed.positionals);
  const values = parsed.raw;
  const thresholds: Record<string, unknown> = {};
  for (const [flag, field] of THRESHOLDS) {
    if (values[flag] !== undefined) thresholds[field] = numberOrRaw(values[flag]);
  }
  // The builders check every value; their errors name the field, which run.ts reports as the flag.
  const config = prometheusConfig({
    targets: parsed.get(TARGET_FLAG),
    ...(values["scrape-interval"] === undefined
      ? {}
      : { scrapeIntervalSeconds: numberOrRaw(values["scrape-interval"]) as number }),
    ...(values.job === undefined ? {} : { jobName: values.job as string }),
  });
  const rules = prometheusRules({
    thresholds: thresholds as PrometheusThresholds,
    ...(values.job === undefined ? {} : { jobName: values.job as string }),
  });
  const out = parsed.get(OUT_FLAG);
  if (out === undefined) {
    io.out(`# ${CONFIG_FILE}\n${config}---\n# ${DEFAULT_PROMETHEUS_RULES_FILE}\n${rules}`);
    return ExitCode.Ok;
  }
  try {
    // Both or neither: a prometheus.yml whose rules file is missing or stale would be worse than none.
    writeFilesTogether(
      out,
      [
        { name: CONFIG_FILE, text: config },
        { name: DEFAULT_PROMETHEUS_RULES_FILE, text: rules },
      ],
      "shared",
    ); // No secret in them, and Prometheus's own user must read them.
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

const HELP = `studio-serve prometheus: a Prometheus scrape config and alerting rules for vLLM instances.

Usage:
  studio-serve prometheus --target host:port [--target host:port ...] [--out DIR] [options]

Prints prometheus.yml and the rules file it loads (${DEFAULT_PROMETHEUS_RULES_FILE}), or with --out
writes both into DIR. The rules alert when an instance is down, its waiting queue stays long and does
not shrink, its KV cache is nearly full, time to first token p95 is too high, or requests finish as
error or abort more than they should.

Options:
${flagHelp(FLAGS)}

vLLM's /metrics is not guarded by --api-key: keep the instances' ports off public networks and let
Prometheus reach them on a private one.

Example:
  studio-serve prometheus --target 127.0.0.1:8001 --target 127.0.0.1:8002 --out ./monitoring
  prometheus --config.file=./monitoring/prometheus.yml
`;

export const prometheus: CliCommand = {
  name: "prometheus",
  synopsis: [["prometheus --target host:port ... [--out DIR]", "write a Prometheus config and alerts"]],
  help: HELP,
  flags: FLAGS,
  run: runPrometheus,
};
