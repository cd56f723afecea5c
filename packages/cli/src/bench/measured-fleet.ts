import type { CliIo } from "../shared/io.js";
import { instanceUrls } from "./prefix-cache.js";

/** What a run loaded: how many vLLM instances stood behind the URL, and how to name them. */
export interface MeasuredFleet {
  instances: number;
  /** "the fleet of 2 instances of the launch on port 8000", or "one instance". */
  name: string;
}

export const ONE_INSTANCE: MeasuredFleet = { instances: 1, name: "one instance" };

/**
 * The instances behind what bench loads, as the launch's state records them: `--launch P`'s, or those of a
 * launch whose front door the URL is; any other URL counts as one instance (bench cannot see behind a
 * balancer that is not a launch's, so a sweep of one sizes as if it were a single vLLM).
 */
export async function measuredFleet(
  url: string,
  launch: number | undefined,
  io: CliIo,
): Promise<MeasuredFleet> {
  const count = (await instanceUrls(url, launch, io)).length;
  if (count <= 1) return ONE_INSTANCE;
  const where = launch === undefined ? `the launch behind ${url}` : `the launch on port ${launch}`;
  return { instances: count, name: `the fleet of ${count} instances of ${where}` };
}
