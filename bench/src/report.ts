// RESULTS.md: where and when it ran, then one section per measurement with its method and its table.
import type { MachineDescription } from "./machine.js";
import type { Spread } from "./stats.js";

export interface Section {
  readonly title: string;
  /** How it was measured, in a sentence or two: a number without its method misleads. */
  readonly method: string;
  readonly table: string;
}

export function renderReport(
  machine: MachineDescription,
  sections: readonly Section[],
  durationMs: number,
): string {
  const minutes = Math.floor(durationMs / 60_000);
  const seconds = Math.round((durationMs % 60_000) / 1000);
  return [
    "# Benchmark results",
    "",
    "Written by `pnpm bench` (bench/src/main.ts); run it again to refresh this file. Latencies are for calls to a",
    "server on the same machine, so they measure the client's own cost, not a network's.",
    "",
    `- Date: ${machine.date}`,
    `- Node.js: ${machine.node}`,
    `- Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memory}, ${machine.os}`,
    `- Load average (1 min) at start and end: ${machine.loadAtStart} and ${machine.loadAtEnd}`,
    `- Run time: ${minutes} min ${seconds} s`,
    "",
    "This is a shared 2-core machine: other engineers' builds and tests may have run alongside, so absolute numbers",
    "wobble between runs. The ratios are steadier, because the variants compared ran interleaved, in rounds.",
    "",
    ...sections.flatMap((section) => [`## ${section.title}`, "", section.method, "", section.table, ""]),
  ].join("\n");
}

/** `1.02× (0.98–1.05)`: a ratio taken round by round, as its median and interquartile range. */
export function ratioSpread({ median, q1, q3 }: Spread): string {
  return `${median.toFixed(2)}× (${q1.toFixed(2)}–${q3.toFixed(2)})`;
}
