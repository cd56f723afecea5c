// How much work each measurement does. The full run is sized to finish in a few minutes on 2 cores while
// giving stable medians; `--quick` is a smoke run of the same code in seconds, and writes no RESULTS.md.
import type { CallSettings } from "./measure/call-overhead.js";
import type { TreeSettings } from "./measure/tree-helpers.js";

export interface BenchSettings {
  readonly calls: CallSettings;
  readonly coldImportRuns: number;
  readonly trees: TreeSettings;
  /** The whole run is stopped (servers included) if it takes longer than this. */
  readonly deadlineMs: number;
}

export const fullRun: BenchSettings = {
  calls: {
    sequential: { warmupCalls: 500, calls: 5_000, rounds: 50 }, // 100 calls a round: noise falls on all alike
    concurrent: { warmupCalls: 1_280, calls: 12_800, rounds: 20 }, // 10 calls per caller a round; the median round counts
    callers: 64,
  },
  coldImportRuns: 40, // ratios per round: 15 left the quartiles of two runs apart
  trees: { sizes: [1e3, 1e4, 1e5, 1e6], minRuns: 5, targetMs: 400, maxRuns: 5_000, warmupMs: 500 },
  deadlineMs: 25 * 60_000,
};

export const quickRun: BenchSettings = {
  calls: {
    sequential: { warmupCalls: 20, calls: 200, rounds: 2 },
    concurrent: { warmupCalls: 64, calls: 640, rounds: 2 },
    callers: 64,
  },
  coldImportRuns: 3,
  trees: { sizes: [1e3, 1e4, 1e5], minRuns: 2, targetMs: 50, maxRuns: 100, warmupMs: 50 },
  deadlineMs: 2 * 60_000,
};
