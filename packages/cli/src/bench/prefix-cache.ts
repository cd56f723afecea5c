import type { MetricsScrape } from "@finetune-studio/serve-kit";
import type { CliIo } from "../shared/io.js";
import { behindFrontDoor, launchUrls } from "../status/launch-urls.js";
import { type InstanceStatus, probeInstance } from "../status/status-probe.js";

// The prefix-cache hit rate of a run: every instance's /metrics read before and after it, as `status` reads
// them (a launch's front door stands for its instances; a balancer that mixes processes cannot be read).

/** The run's hit rate over every instance, or null and why not. */
export interface PrefixCacheResult {
  /** Hits over lookups, in prompt tokens, summed over the instances between the two reads. */
  hitRate: number | null;
  /** Prompt tokens looked up during the run. */
  tokens: number;
  instances: string[];
  /** Why there is no figure, when there is none. */
  unknown: string | null;
}

const READ_TIMEOUT_MS = 10_000;

/** The instances to read: --launch P's, those behind a launch's front door, or the URL itself. */
export async function instanceUrls(url: string, launch: number | undefined, io: CliIo): Promise<string[]> {
  if (launch !== undefined) return (await launchUrls(launch, io))?.urls ?? [url];
  return await behindFrontDoor(url, io);
}

/** One read of each instance; `earlier` the reads before the run. */
export async function readInstances(
  urls: readonly string[],
  apiKey: string | undefined,
  earlier: readonly (MetricsScrape | undefined)[] = [],
): Promise<{ statuses: InstanceStatus[]; scrapes: (MetricsScrape | undefined)[] }> {
  const reads = await Promise.all(
    urls.map((url, i) =>
      probeInstance(
        url,
        { timeoutMs: READ_TIMEOUT_MS, ...(apiKey === undefined ? {} : { apiKey }) },
        earlier[i],
      ),
    ),
  );
  return { statuses: reads.map((read) => read.status), scrapes: reads.map((read) => read.scrape) };
}

/**
 * vLLM V1's `prefix_cache_hits` over `prefix_cache_queries` (tokens), their increases summed over the
 * instances: a figure only when every instance was read before and after and counted its lookups.
 */
export function prefixCacheOfRun(
  before: readonly (MetricsScrape | undefined)[],
  after: readonly InstanceStatus[],
): PrefixCacheResult {
  const instances = after.map((status) => status.url);
  const none = (why: string): PrefixCacheResult => ({ hitRate: null, tokens: 0, instances, unknown: why });
  let hits = 0;
  let tokens = 0;
  for (const [i, status] of after.entries()) {
    const metrics = status.metrics;
    if (status.state !== "up" || before[i] === undefined || metrics === null || !metrics.readable) {
      return none(
        `${status.url}/metrics could not be read before and after the run (${status.state}${status.detail === null ? "" : `: ${status.detail}`})`,
      );
    }
    const rate = metrics.prefixCacheHitRate;
    if (metrics.restarted) return none(`${status.url} restarted during the run`);
    if (rate === null || rate.window !== "between-scrapes" || rate.tokens === null) continue;
    hits += rate.share * rate.tokens;
    tokens += rate.tokens;
  }
  if (tokens === 0)
    return none(
      "the instances counted no prefix-cache lookup during the run (prefix caching off, or vLLM V0)",
    );
  return { hitRate: hits / tokens, tokens, instances, unknown: null };
}
