import { jsonForTerminal } from "@finetune-studio/internal";
import type { MetricsScrape } from "@finetune-studio/serve-kit";
import { sleep } from "../shared/abortable-sleep.js";
import { ExitCode } from "../shared/exit-codes.js";
import { type CliIo, UsageError } from "../shared/io.js";
import { parseCommandLine } from "../shared/serve-args.js";
import { behindFrontDoor, launchUrls } from "../status/launch-urls.js";
import { type InstanceStatus, type ProbeOptions, probeInstance } from "../status/status-probe.js";
import { formatStatusTable } from "../status/status-table.js";
import type { CliCommand } from "./command-type.js";
import { controlPort } from "./reload.js";

const STATUS_OPTIONS = {
  json: { type: "boolean" },
  watch: { type: "boolean" },
  interval: { type: "string" },
  count: { type: "string" },
  timeout: { type: "string" },
  "api-key-env": { type: "string" },
  launch: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Clears the terminal and puts the cursor home, so --watch redraws the table in place. */
const REDRAW = "\u001b[H\u001b[2J";

/** `studio-serve status URL...`: up or down, models and adapters, and the load of each vLLM instance. */
async function runStatus(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandLine("status", args, STATUS_OPTIONS);
  if (values.help === true) {
    io.out(HELP);
    return ExitCode.Ok;
  }
  const launched =
    values.launch === undefined ? [] : await instancesOf(controlPort(values.launch, "status"), io);
  if (positionals.length === 0 && launched.length === 0)
    throw new UsageError("name at least one server URL, e.g. http://127.0.0.1:8000, or --launch P", "status");
  const given = await Promise.all(positionals.map((text, i) => behindFrontDoor(checkServerUrl(text, i), io)));
  const urls = [...new Set([...given.flat(), ...launched])];
  const intervalSeconds = integerOption(values.interval, "--interval", 2, 1, 3600);
  const timeoutSeconds = integerOption(values.timeout, "--timeout", 5, 1, 120);
  const count =
    values.count === undefined ? undefined : integerOption(values.count, "--count", 1, 1, 1_000_000);
  if (count !== undefined && values.watch !== true)
    throw new UsageError("--count: goes with --watch", "status");
  const apiKey = readApiKey(values["api-key-env"] as string | undefined, io.env);
  const options = { timeoutMs: timeoutSeconds * 1000, ...(apiKey === undefined ? {} : { apiKey }) };

  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
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
    // The first look only gives counters; a second one an interval later gives rates over that time.
    let statuses = await refresh();
    if (previous.size > 0) {
      if (!(await sleep(intervalSeconds * 1000, stop.signal))) return ExitCode.Ok;
      statuses = await refresh();
    }
    if (values.watch !== true) {
      io.out(
        values.json === true
          ? `${jsonForTerminal({ instances: statuses }, 2)}\n`
          : formatStatusTable(statuses),
      );
      return allUp(statuses);
    }
    for (let shown = 1; ; shown++) {
      if (values.json === true)
        io.out(`${jsonForTerminal({ time: new Date().toISOString(), instances: statuses })}\n`);
      else io.out(`${REDRAW}${watchHeader(intervalSeconds)}\n${formatStatusTable(statuses)}`);
      if (count !== undefined && shown >= count) return allUp(statuses);
      if (!(await sleep(intervalSeconds * 1000, stop.signal))) return ExitCode.Ok;
      statuses = await refresh();
      if (stop.signal.aborted) return ExitCode.Ok;
    }
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
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
    const detail = `could not be read: ${error instanceof Error ? error.message : String(error)}`;
    return { status: { url, state: "garbage", detail, models: null, metrics: null }, scrape: undefined };
  }
}

/** The root URLs of the instances the launch on `port` manages (one, or a fleet's), for --launch P. */
async function instancesOf(port: number, io: CliIo): Promise<string[]> {
  const launch = await launchUrls(port, io);
  if (launch === undefined) {
    throw new UsageError(`--launch: no launch runs on port ${port} for this user`, "status");
  }
  if (launch.killed !== undefined) io.err(`studio-serve: ${launch.killed}\n`);
  return launch.urls.map(checkServerUrl);
}

function allUp(statuses: readonly InstanceStatus[]): number {
  return statuses.every((status) => status.state === "up") ? ExitCode.Ok : ExitCode.Failure;
}

function watchHeader(intervalSeconds: number): string {
  const time = new Date().toTimeString().slice(0, 8);
  return `studio-serve status at ${time}, every ${intervalSeconds} s (Ctrl-C stops)\n`;
}

/** A server's root URL: http(s), no credentials, no path (vLLM's routes hang off the root). */
export function checkServerUrl(text: string, index: number): string {
  const refuse = (rule: string) => {
    // A user name or password in the URL is a secret: it is never echoed.
    const redacted = text.replace(/\/\/[^/@]*@/, "//…@");
    const shown = redacted.length > 80 ? `${redacted.slice(0, 80)}…` : redacted;
    throw new UsageError(`URL #${index + 1}: ${rule} (given ${JSON.stringify(shown)})`, "status");
  };
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return refuse("must be a server URL such as http://127.0.0.1:8000");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") refuse("must be http:// or https://");
  if (url.username !== "" || url.password !== "") refuse("must not hold a user name or password");
  if (url.pathname === "/v1" || url.pathname === "/v1/") refuse("must be the server's root URL, without /v1");
  if (url.pathname !== "/" || url.search !== "" || url.hash !== "")
    refuse("must be the server's root URL, without a path");
  return `${url.protocol}//${url.host}`;
}

function integerOption(value: unknown, flag: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const number = typeof value === "string" && /^\d{1,9}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(number) || number < min || number > max) {
    throw new UsageError(
      `${flag}: must be an integer from ${min} to ${max} (given ${JSON.stringify(value)})`,
      "status",
    );
  }
  return number;
}

/** The server's key: from `--api-key-env NAME`, else a `VLLM_API_KEY` in the environment. */
export function readApiKey(
  name: string | undefined,
  env: NodeJS.ProcessEnv,
  command = "status",
): string | undefined {
  if (name === undefined) return env.VLLM_API_KEY === "" ? undefined : env.VLLM_API_KEY;
  if (!ENV_NAME.test(name)) {
    throw new UsageError(
      `--api-key-env: must name an environment variable such as MY_VLLM_KEY, not hold the key (given a ${name.length}-character value)`,
      command,
    );
  }
  const key = env[name];
  if (key === undefined || key === "") throw new UsageError(`--api-key-env: ${name} is not set`, command);
  return key;
}

const HELP = `studio-serve status: is each vLLM instance up, what it serves, and how loaded it is.

Usage:
  studio-serve status URL [URL ...] [--watch] [--json] [options]
  studio-serve status --launch P [URL ...] [options]

URL is a server's root, e.g. http://127.0.0.1:8000 (or 127.0.0.1:8000). For each instance it reads
/health, /v1/models (the model and its LoRA adapters) and /metrics twice, an interval apart: requests
running and waiting, KV-cache usage, prompt and generated tokens per second, time to first token and
end-to-end latency (p50/p95 of the requests finished in between, else since the start), preemptions,
and the adapters in the running batch. An instance that refuses connections (stopped, or still loading
its weights), does not answer in time, or answers something other than vLLM is shown as such.
Each instance is read on its own: the front door of a launch on this machine stands for its instances
(as --launch P), and a URL whose /metrics reads come from more than one process (by vLLM's
process_start_time_seconds: a balancer, or a restart between reads) is shown as mixed, without numbers.

Options:
  --launch P                also every instance of the \`launch\` serving on port P (one, or N)
  --watch                   redraw the table every interval until Ctrl-C
  --count N                 with --watch: stop after N refreshes
  --interval S              seconds between the two reads, and between refreshes (default 2)
  --timeout S               seconds each look at an instance may take, its /health, /v1/models and
                            /metrics reads together (default 5); one look never waits longer
  --json                    JSON for scripts (with --watch, one JSON object per line and refresh)
  --api-key-env NAME        the key vLLM was started with, for /v1/models (default: VLLM_API_KEY);
                            sent only over https or to this machine

Exits 0 when every instance is up, 1 when one is not, 2 on bad arguments.
`;

export const status: CliCommand = {
  name: "status",
  synopsis: [["status URL ... [--watch] [--json]", "show whether instances are up, and their load"]],
  help: HELP,
  run: runStatus,
};
