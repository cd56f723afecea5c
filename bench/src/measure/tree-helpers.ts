// flattenTree and findNodes on trees of 10^3 to 10^6 nodes. Linear growth shows as a flat "per node"
// column and a growth factor near 10 for each tenfold step. Repetitions are bounded by count and by time.
import { findNodes, flattenTree, type ProjectTree } from "@finetune-studio/client";
import { count, millis } from "../format.js";
import { median } from "../stats.js";
import { markdownTable } from "../table.js";
import { countNodes, generateTree } from "../trees.js";
import { withGcTime } from "./gc-time.js";

export interface TreeSettings {
  readonly sizes: readonly number[];
  /** At least this many timed runs per size and helper... */
  readonly minRuns: number;
  /** ...and more while under this many milliseconds, up to maxRuns. */
  readonly targetMs: number;
  readonly maxRuns: number;
  /** Untimed runs of every helper on a mid-sized tree before anything is timed. */
  readonly warmupMs: number;
}

const helpers: readonly { name: string; run: (tree: ProjectTree) => unknown }[] = [
  { name: "flattenTree", run: (tree) => flattenTree(tree) },
  { name: "findNodes(experiment)", run: (tree) => findNodes(tree, "experiment") },
];

function timeRuns(run: () => unknown, settings: TreeSettings): number[] {
  run(); // the first run on a new tree also pays for growing the heap to hold the result
  const samples: number[] = [];
  let spent = 0;
  while (
    samples.length < settings.maxRuns &&
    (samples.length < settings.minRuns || spent < settings.targetMs)
  ) {
    const started = performance.now();
    run();
    const ms = performance.now() - started;
    samples.push(ms);
    spent += ms;
  }
  return samples;
}

/** A tree as the client hands it over: parsed from JSON, so laid out in memory in document order. */
function receivedTree(size: number): ProjectTree {
  return JSON.parse(JSON.stringify(generateTree(size))) as ProjectTree;
}

/** Runs every helper for a while first, so the smallest size is not the one that pays for the JIT. */
function warmUp(warmupMs: number): void {
  const tree = receivedTree(10_000);
  const until = performance.now() + warmupMs;
  while (performance.now() < until) for (const helper of helpers) helper.run(tree);
}

export async function measureTreeHelpers(settings: TreeSettings): Promise<string> {
  const rows: string[][] = [];
  const previous = new Map<string, { size: number; ms: number }>();
  warmUp(settings.warmupMs);
  for (const size of settings.sizes) {
    const tree = receivedTree(size);
    const nodes = countNodes(tree);
    for (const helper of helpers) {
      const {
        result: samples,
        elapsedMs,
        gcMs,
      } = await withGcTime(() => timeRuns(() => helper.run(tree), settings));
      const ms = median(samples);
      const before = previous.get(helper.name);
      rows.push([
        helper.name,
        count(nodes),
        millis(ms),
        `${Math.round((ms * 1e6) / nodes)} ns`,
        `${Math.round((gcMs / elapsedMs) * 100)}%`,
        before ? `${(ms / before.ms).toFixed(1)}× for ${(nodes / before.size).toFixed(0)}× the nodes` : "",
      ]);
      previous.set(helper.name, { size: nodes, ms });
    }
  }
  rows.sort((a, b) => (a[0] ?? "").localeCompare(b[0] ?? "")); // one helper's sizes together
  return markdownTable(["helper", "nodes", "median", "per node", "time in GC", "growth"], rows);
}
