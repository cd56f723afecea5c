import { join } from "node:path";
import { escapeForTerminal } from "@finetune-studio/internal";
import {
  DEFAULT_PROMETHEUS_RULES_FILE,
  type PrometheusThresholds,
  prometheusConfig,
  prometheusRules,
  ServeConfigError,
} from "@finetune-studio/serve-kit";
import { ExitCode } from "../shared/exit-codes.js";
import { type CliIo, UsageError } from "../shared/io.js";
import { FileWriteError, writeFilesTogether } from "../shared/safe-files.js";
import { parseCommandLine } from "../shared/serve-args.js";
import type { CliCommand } from "./command-type.js";

/** Each threshold flag and the builder field it sets. */
const THRESHOLD_FLAGS = {
  waiting: "waitingRequests",
  "kv-cache": "kvCacheUsage",
  "ttft-p95": "ttftP95Seconds",
  "error-ratio": "errorFinishRatio",
  "down-for": "downForMinutes",
  for: "forMinutes",
} as const satisfies Record<string, keyof PrometheusThresholds>;

const PROMETHEUS_OPTIONS = {
  target: { type: "string", multiple: true },
  out: { type: "string" },
  "scrape-interval": { type: "string" },
  job: { type: "string" },
  ...Object.fromEntries(Object.keys(THRESHOLD_FLAGS).map((flag) => [flag, { type: "string" } as const])),
  help: { type: "boolean", short: "h" },
} as const;

const CONFIG_FILE = "prometheus.yml";

/** `studio-serve prometheus`: the scrape config and alerting rules for vLLM instances, printed or written. */
function runPrometheus(args: readonly string[], io: CliIo): number {
  const { values, positionals } = parseCommandLine("prometheus", args, PROMETHEUS_OPTIONS);
  if (values.help === true) {
    io.out(HELP);
    return ExitCode.Ok;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`, "prometheus");
  const thresholds: Record<string, unknown> = {};
  for (const [flag, field] of Object.entries(THRESHOLD_FLAGS)) {
    if (values[flag] !== undefined) thresholds[field] = decimalOrRaw(values[flag]);
  }
  let config: string;
  let rules: string;
  try {
    config = prometheusConfig({
      targets: (values.target as string[] | undefined) ?? [],
      ...(values["scrape-interval"] === undefined
        ? {}
        : { scrapeIntervalSeconds: decimalOrRaw(values["scrape-interval"]) as number }),
      ...(values.job === undefined ? {} : { jobName: values.job as string }),
    });
    rules = prometheusRules({
      thresholds: thresholds as PrometheusThresholds,
      ...(values.job === undefined ? {} : { jobName: values.job as string }),
    });
  } catch (error) {
    if (error instanceof ServeConfigError) {
      throw new UsageError(`${flagFor(error.field)}: ${error.rule} (given ${error.given})`, "prometheus");
    }
    throw error;
  }
  const out = values.out as string | undefined;
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

/** A plain decimal becomes a number; anything else stays text for the builder to refuse by name. */
function decimalOrRaw(value: unknown): unknown {
  return typeof value === "string" && /^\d{1,9}(\.\d{1,9})?$/.test(value) ? Number(value) : value;
}

function flagFor(field: string): string {
  const target = /^targets\[(\d+)\]$/.exec(field);
  if (target) return `--target #${Number(target[1]) + 1}`;
  const threshold = Object.entries(THRESHOLD_FLAGS).find(([, name]) => field === `thresholds.${name}`);
  if (threshold) return `--${threshold[0]}`;
  const names: Record<string, string> = {
    targets: "--target",
    scrapeIntervalSeconds: "--scrape-interval",
    jobName: "--job",
  };
  return names[field] ?? field;
}

const HELP = `studio-serve prometheus: a Prometheus scrape config and alerting rules for vLLM instances.

Usage:
  studio-serve prometheus --target host:port [--target host:port ...] [--out DIR] [options]

Prints prometheus.yml and the rules file it loads (${DEFAULT_PROMETHEUS_RULES_FILE}), or with --out
writes both into DIR. The rules alert when an instance is down, its waiting queue stays long and does
not shrink, its KV cache is nearly full, time to first token p95 is too high, or requests finish as
error or abort more than they should.

Options:
  --target host:port        a vLLM instance ([addr]:port for IPv6); repeat for each
  --out DIR                 write prometheus.yml and ${DEFAULT_PROMETHEUS_RULES_FILE} into DIR
  --scrape-interval S       seconds between scrapes (default 15)
  --job NAME                the scrape job's name (default vllm)
  --waiting N               waiting requests that count as queueing (default 10)
  --kv-cache F              KV-cache share, above 0 and at most 1, that is nearly full (default 0.9)
  --ttft-p95 S              seconds of time to first token, p95, that is too slow (default 2)
  --error-ratio F           share of requests finishing as error or abort that alerts (default 0.05)
  --for M                   minutes a condition must last before it alerts (default 5)
  --down-for M              minutes an instance must be down before it alerts (default 1)

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
  run: runPrometheus,
};
