import { type ChatClient, createChatClient } from "@finetune-studio/client";
import { type FleetSecondSample, readInstanceSignals } from "@finetune-studio/serve-kit/internal";
import { sleep } from "../shared/abortable-sleep.js";
import { MAX_METRICS_BYTES, scrapeMetrics } from "../status/status-probe.js";
import { readLaunchState } from "../supervise/launch-state.js";

// A launch's fleet watched during a staged bench, once a second, beside the load and never in its way: the
// instances serving as the launch's state file records them (read at each sample, so instances an autoscaler
// adds or removes are counted as they come and go) and the requests waiting over all of them, each instance's
// `vllm:num_requests_waiting` read from its own /metrics (readInstanceSignals). The requests go through the
// front door as always; the sampler only reads.

/** One sample a second, as the timeline has one row a second. */
export const SAMPLE_INTERVAL_MS = 1000;
/** A page not read within this is unknown for its sample (the next sample tries again). */
export const SAMPLE_READ_TIMEOUT_MS = 2000;
/** At most this many samples are kept: two days of seconds, as the timeline covers at most. */
const MAX_SAMPLES = 2 * 86_400;

export interface FleetSamplerOptions {
  /** The launch's runtime directory, where its state file is. */
  dir: string;
  /** What the sampler calls the launch in a warning: `--launch 8000`. */
  name: string;
  /** The run's start on `performance.now()`'s clock: samples are timed from it, as the records are. */
  originMs: number;
  /** Says once (per instance) why a figure is unknown. */
  warn: (text: string) => void;
  /** Hears each sample as it is taken. */
  onSample?: (sample: FleetSecondSample) => void;
  intervalMs?: number;
  timeoutMs?: number;
}

export interface FleetSampler {
  /** Stops sampling (a read under way is abandoned, not counted) and gives the samples, oldest first. */
  stop(): Promise<FleetSecondSample[]>;
}

/** Starts sampling the fleet at once and then every interval, until stopped. */
export function sampleFleet(options: FleetSamplerOptions): FleetSampler {
  const intervalMs = options.intervalMs ?? SAMPLE_INTERVAL_MS;
  const stopping = new AbortController();
  const samples: FleetSecondSample[] = [];
  const read = instanceReader(options);
  const loop = (async () => {
    while (!stopping.signal.aborted) {
      const tickAt = performance.now();
      const sample = await read(stopping.signal);
      if (!stopping.signal.aborted && samples.length < MAX_SAMPLES) {
        samples.push(sample);
        options.onSample?.(sample);
      }
      await sleep(Math.max(0, tickAt + intervalMs - performance.now()), stopping.signal);
    }
  })();
  return {
    async stop() {
      stopping.abort();
      await loop;
      return samples;
    },
  };
}

/** One sample: the state file's instances and each read instance's waiting requests. */
function instanceReader(options: FleetSamplerOptions) {
  const timeoutMs = options.timeoutMs ?? SAMPLE_READ_TIMEOUT_MS;
  const clients = new Map<string, ChatClient>();
  const warned = new Set<string>();
  const warnOnce = (key: string, text: string) => {
    if (warned.has(key)) return;
    warned.add(key);
    options.warn(`studio-serve: warning: ${text}`);
  };
  const clientOf = (url: string) => {
    const client =
      clients.get(url) ??
      createChatClient({ baseUrl: url, maxRetries: 0, timeoutMs, maxResponseBytes: MAX_METRICS_BYTES });
    clients.set(url, client);
    return client;
  };
  return async (stopping: AbortSignal): Promise<FleetSecondSample> => {
    // A gauge read is stamped with the time its read began, as Prometheus stamps a scrape.
    const timeMs = performance.now() - options.originMs;
    const state = readLaunchState(options.dir);
    if (state === undefined) {
      // Unknown, said as such: the last figures must not stand for the seconds without a launch to read.
      warnOnce(
        "state",
        `${options.name}: no launch state in ${options.dir}: the timeline has no instances or queue while there is none`,
      );
      return { timeMs, serving: null, queue: null };
    }
    // A file from before instances had states records serving ones.
    const stateOf = (instance: (typeof state.instances)[number]) => instance.state ?? "serving";
    const serving = state.instances.filter((instance) => stateOf(instance) === "serving").length;
    // A draining instance still holds requests it was given: its queue is the fleet's until it stops.
    const urls = state.instances
      .filter((instance) => stateOf(instance) === "serving" || stateOf(instance) === "draining")
      .map((instance) => `http://127.0.0.1:${instance.port}`);
    for (const url of clients.keys()) if (!urls.includes(url)) clients.delete(url); // gone: forgotten
    const signal = AbortSignal.any([stopping, AbortSignal.timeout(timeoutMs)]);
    const waits = await Promise.all(urls.map((url) => waitingAt(clientOf(url), signal, timeoutMs)));
    let queue: number | null = 0;
    for (const [index, wait] of waits.entries()) {
      if (typeof wait === "number") queue = queue === null ? null : queue + wait;
      else {
        queue = null;
        if (!stopping.aborted)
          warnOnce(
            urls[index] ?? "",
            `the queue is unknown while ${urls[index]}/metrics cannot be read (${wait}): it is not counted as 0`,
          );
      }
    }
    return { timeMs, serving, queue };
  };
}

/** An instance's waiting requests (vLLM's `vllm:num_requests_waiting`, its engines summed), or why not. */
async function waitingAt(chat: ChatClient, signal: AbortSignal, timeoutMs: number): Promise<number | string> {
  const scrape = await scrapeMetrics(chat, signal, timeoutMs);
  if (typeof scrape === "string") return scrape;
  const reading = readInstanceSignals(scrape.text);
  return reading.signals === null ? reading.reason : reading.signals.waiting;
}
