import { escapeXml } from "./chart.js";
import { type LoadStage, stageBoundariesMs } from "./stages.js";
import type { TimelineRow } from "./timeline.js";

// The timeline as a self-contained SVG (no library, no script, text escaped), in two panels over the same
// seconds: above, requests per second sent, answered and failed, with the instances serving as a step line
// on its own axis; below, TTFT p95 (and p50) with the waiting requests on their own axis. Stage boundaries
// are dashed lines across both, each stage labelled with its rate. A gap in a line is a second without a
// figure (no answer began, or the fleet was not sampled): nothing is drawn there rather than a guess.

const WIDTH = 800;
const HEIGHT = 500;
const LEFT = 64;
const RIGHT = 72;
const PLOT_WIDTH = WIDTH - LEFT - RIGHT;
const TOP_PANEL = { top: 56, height: 190 };
const BOTTOM_PANEL = { top: 300, height: 140 };

type Value = (row: TimelineRow) => number | null;
interface Series {
  readonly name: string;
  readonly color: string;
  readonly value: Value;
  readonly step?: boolean;
  readonly dashed?: boolean;
}
interface Panel {
  readonly top: number;
  readonly height: number;
  readonly leftTitle: string;
  readonly rightTitle: string;
  /** The left axis is a measurement (ms), not a count: its ticks may fall between whole numbers. */
  readonly leftMeasured?: boolean;
  readonly left: readonly Series[];
  readonly right: readonly Series[];
}

const PANELS: readonly Panel[] = [
  {
    ...TOP_PANEL,
    leftTitle: "requests/s",
    rightTitle: "instances serving",
    left: [
      { name: "sent", color: "#2563eb", value: (row) => row.sent },
      { name: "answered", color: "#16a34a", value: (row) => row.answered },
      { name: "failed", color: "#dc2626", value: (row) => row.failed },
    ],
    right: [{ name: "instances serving", color: "#111827", value: (row) => row.serving, step: true }],
  },
  {
    ...BOTTOM_PANEL,
    leftTitle: "TTFT (ms)",
    leftMeasured: true,
    rightTitle: "waiting requests",
    left: [
      { name: "TTFT p95", color: "#9333ea", value: (row) => row.ttftP95Ms },
      { name: "TTFT p50", color: "#c4b5fd", value: (row) => row.ttftP50Ms },
    ],
    right: [{ name: "waiting", color: "#f59e0b", value: (row) => row.queue, step: true, dashed: true }],
  },
];

export interface TimelineChartOptions {
  /** The stages the load followed: their boundaries are marked and each is labelled with its rate. */
  readonly stages?: readonly LoadStage[];
  /** A title above the chart. */
  readonly title?: string;
}

/** The SVG text of a timeline, one row a second. */
export function timelineSvg(rows: readonly TimelineRow[], options: TimelineChartOptions = {}): string {
  const seconds = Math.max(1, rows.length);
  const x = (second: number) => LEFT + (second / seconds) * PLOT_WIDTH;
  const bottom = BOTTOM_PANEL.top + BOTTOM_PANEL.height;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    options.title === undefined
      ? ""
      : `<text x="${LEFT}" y="18" font-size="14" font-weight="bold">${escapeXml(options.title)}</text>`,
    ...PANELS.flatMap((panel) => drawPanel(panel, rows, x)),
    ...timeAxis(seconds, x, bottom),
    ...stageMarks(options.stages ?? [], x, seconds),
    rows.length === 0
      ? `<text x="${LEFT + PLOT_WIDTH / 2}" y="${TOP_PANEL.top + TOP_PANEL.height / 2}" text-anchor="middle">no requests</text>`
      : "",
    "</svg>",
    "",
  ]
    .filter((line) => line !== "")
    .join("\n");
}

/** One panel: its grid, both axes with ticks and titles, its series and its legend. */
function drawPanel(panel: Panel, rows: readonly TimelineRow[], x: (second: number) => number): string[] {
  // A loop, not Math.max(...values): a day of seconds has more values than the call stack has room for.
  const axisMax = (series: readonly Series[]) => {
    let max = 0;
    for (const row of rows) for (const one of series) max = Math.max(max, one.value(row) ?? 0);
    return niceMax(max);
  };
  const leftMax = axisMax(panel.left);
  const rightMax = axisMax(panel.right);
  const leftY = (value: number) => panel.top + panel.height - (value / leftMax) * panel.height;
  const rightY = (value: number) => panel.top + panel.height - (value / rightMax) * panel.height;
  const right = LEFT + PLOT_WIDTH;
  const middle = panel.top + panel.height / 2;
  const ticks = [
    ...axisTicks(leftMax, !panel.leftMeasured, leftY).map(
      ({ y, text }) =>
        `<line x1="${LEFT}" x2="${right}" y1="${y}" y2="${y}" stroke="#e5e7eb"/><text x="${LEFT - 6}" y="${fixed(Number(y) + 4)}" text-anchor="end">${text}</text>`,
    ),
    ...axisTicks(rightMax, true, rightY).map(
      ({ y, text }) => `<text x="${right + 6}" y="${fixed(Number(y) + 4)}">${text}</text>`,
    ),
  ];
  return [
    ...ticks,
    `<rect x="${LEFT}" y="${panel.top}" width="${PLOT_WIDTH}" height="${panel.height}" fill="none" stroke="#111827"/>`,
    `<text x="16" y="${middle}" text-anchor="middle" transform="rotate(-90 16 ${middle})">${escapeXml(panel.leftTitle)}</text>`,
    `<text x="${WIDTH - 12}" y="${middle}" text-anchor="middle" transform="rotate(90 ${WIDTH - 12} ${middle})">${escapeXml(panel.rightTitle)}</text>`,
    ...panel.left.map((series) => seriesPath(series, rows, x, leftY)),
    ...panel.right.map((series) => seriesPath(series, rows, x, rightY)),
    ...legend([...panel.left, ...panel.right], panel.top - 10),
  ];
}

/** A series as one path, broken where a second has no figure; a step series holds each value for its second. */
function seriesPath(
  series: Series,
  rows: readonly TimelineRow[],
  x: (second: number) => number,
  y: (value: number) => number,
): string {
  const parts: string[] = [];
  let drawing = false;
  for (const row of rows) {
    const value = series.value(row);
    if (value === null) {
      drawing = false;
      continue;
    }
    if (series.step) {
      parts.push(
        `${drawing ? "V" : `M${fixed(x(row.second))}`} ${fixed(y(value))} H${fixed(x(row.second + 1))}`,
      );
    } else {
      parts.push(`${drawing ? "L" : "M"}${fixed(x(row.second + 0.5))},${fixed(y(value))}`);
    }
    drawing = true;
  }
  const dash = series.dashed ? ' stroke-dasharray="6 3"' : "";
  const width = series.step ? 2.5 : 1.5;
  return `<path fill="none" stroke="${series.color}" stroke-width="${width}"${dash} d="${parts.join(" ")}"><title>${escapeXml(series.name)}</title></path>`;
}

function legend(series: readonly Series[], y: number): string[] {
  let at = LEFT;
  return series.flatMap((one) => {
    const x = at;
    at += 24 + one.name.length * 7 + 16;
    return [
      `<line x1="${x}" x2="${x + 18}" y1="${y - 4}" y2="${y - 4}" stroke="${one.color}" stroke-width="3"${one.dashed ? ' stroke-dasharray="6 3"' : ""}/>`,
      `<text x="${x + 24}" y="${y}">${escapeXml(one.name)}</text>`,
    ];
  });
}

/** Ticks along the seconds, a round step apart, and the axis title. */
function timeAxis(seconds: number, x: (second: number) => number, bottom: number): string[] {
  const step =
    [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14_400].find(
      (candidate) => seconds / candidate <= 10,
    ) ?? Math.ceil(seconds / 10);
  const ticks: string[] = [];
  for (let second = 0; second <= seconds; second += step) {
    ticks.push(`<text x="${fixed(x(second))}" y="${bottom + 16}" text-anchor="middle">${second}</text>`);
  }
  return [
    ...ticks,
    `<text x="${LEFT + PLOT_WIDTH / 2}" y="${bottom + 40}" text-anchor="middle">seconds since the start</text>`,
  ];
}

/** A dashed line at each boundary between stages, and each stage's rate over its span. */
function stageMarks(stages: readonly LoadStage[], x: (second: number) => number, seconds: number): string[] {
  const bounds = stageBoundariesMs(stages).map((ms) => ms / 1000);
  const top = TOP_PANEL.top;
  const bottom = BOTTOM_PANEL.top + BOTTOM_PANEL.height;
  return stages.flatMap((stage, index) => {
    const start = Math.min(bounds[index] as number, seconds);
    const end = Math.min(bounds[index + 1] as number, seconds);
    const label = `<text x="${fixed(x((start + end) / 2))}" y="${top + 14}" text-anchor="middle" fill="#6b7280" stroke="white" stroke-width="3" paint-order="stroke">${escapeXml(`${stage.rate} req/s`)}</text>`;
    if (index === 0) return [label];
    return [
      `<line x1="${fixed(x(start))}" x2="${fixed(x(start))}" y1="${top}" y2="${bottom}" stroke="#6b7280" stroke-dasharray="4 4"/>`,
      label,
    ];
  });
}

/** The smallest of 1, 2 or 5 times a power of ten at or above `value` (at least 1): an axis ends there. */
export function niceMax(value: number): number {
  if (!(value > 1)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return ([1, 2, 5, 10].find((factor) => factor * power >= value) ?? 10) * power;
}

/** Ticks from 0 to `max` at a round step (a fifth, or a quarter of a 2); a count's step is whole. */
function axisTicks(max: number, counts: boolean, y: (value: number) => number) {
  const lead = Math.round(max / 10 ** Math.floor(Math.log10(max)));
  const step = Math.max(counts ? 1 : 0, lead === 2 ? max / 4 : max / 5);
  const ticks: { y: string; text: string }[] = [];
  for (let index = 0; index * step <= max + 1e-9; index++) {
    ticks.push({ y: fixed(y(index * step)), text: tickText(index * step) });
  }
  return ticks;
}

function tickText(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(value < 10 ? 1 : 0);
}

function fixed(n: number): string {
  return n.toFixed(1);
}
