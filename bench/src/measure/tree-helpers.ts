// flattenTree and findNodes on trees of 10^3 to 10^6 nodes. Linear growth shows as a flat "per node"
// column and a growth factor near 10 for each tenfold step. Repetitions are bounded by count and by time.
import { findNodes, flattenTree, type ProjectTree } from "@finetune-studio/client";
import { count, millis } from "../format.js";
import { median } from "../stats.js";
import { markdownTable } from "../table.js";
import { countNodes, generateTree } from "../trees.js";

export interface TreeSettings {
  readonly sizes: readonly number[];
  /** At least this many timed runs per size and helper... */
  readonly minRuns: number;
  /** ...and more while under this many milliseconds, up to maxRuns. */
  readonly targetMs: number;
  readonly maxRuns: number;
}

const helpers: readonly { name: string; run: (tree: ProjectTree) => unknown }[] = [
  { name: "flattenTree", run: (tree) => flattenTree(tree) },
  { name: "findNodes(experiment)", run: (tree) => findNodes(tree, "experiment") },
];

function timeRuns(run: () => unknown, settings: TreeSettings): number[] {
  run(); // warm-up: the first run also pays for compiling the helper
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

export function measureTreeHelpers(settings: TreeSettings): string {
  const rows: string[][] = [];
  const previous = new Map<string, { size: number; ms: number }>();
  for (const size of settings.sizes) {
    const tree = generateTree(size);
    const nodes = countNodes(tree);
    for (const helper of helpers) {
      const ms = median(timeRuns(() => helper.run(tree), settings));
      const before = previous.get(helper.name);
      rows.push([
        helper.name,
        count(nodes),
        millis(ms),
        `${Math.round((ms * 1e6) / nodes)} ns`,
        before ? `${(ms / before.ms).toFixed(1)}× for ${(nodes / before.size).toFixed(0)}× the nodes` : "",
      ]);
      previous.set(helper.name, { size: nodes, ms });
    }
  }
  rows.sort((a, b) => (a[0] ?? "").localeCompare(b[0] ?? "")); // one helper's sizes together
  return markdownTable(["helper", "nodes", "median", "per node", "growth"], rows);
}
