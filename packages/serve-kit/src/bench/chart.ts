import type { SweepPoint } from "./capacity.js";

// A chart of latency against load for a sweep, as a self-contained SVG: no library, no script, text escaped.
// A level without a completed request has no latency and no point; an infinite rate is drawn at the right
// edge, labelled inf.

const WIDTH = 640;
const HEIGHT = 360;
const MARGIN = { left: 64, right: 160, top: 24, bottom: 48 };
const SERIES = [
  { name: "TTFT p50", color: "#2563eb", value: (p: SweepPoint) => p.metrics.ttftMs?.median },
  { name: "TTFT p99", color: "#93c5fd", value: (p: SweepPoint) => p.metrics.ttftMs?.p99 },
  { name: "E2E p50", color: "#dc2626", value: (p: SweepPoint) => p.metrics.e2elMs?.median },
  { name: "E2E p99", color: "#fca5a5", value: (p: SweepPoint) => p.metrics.e2elMs?.p99 },
] as const;

/** Where an infinite load sits, as a share of the axis; finite loads scale to the part before it. */
const INFINITE_AT = 1;
const FINITE_SHARE_WITH_INFINITE = 0.85;

/** Text made safe inside an SVG element or attribute. */
export const escapeXml = (text: string) =>
  text.replace(
    /[<>&"]/g,
    (char) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;" })[char] ?? char,
  );

/** The SVG text: one line per series over the sweep's loads, with axes, ticks and a legend. */
export function latencyChartSvg(points: readonly SweepPoint[], loadName: string): string {
  const sorted = [...points].sort((a, b) => a.load - b.load);
  const finite = sorted.map((p) => p.load).filter(Number.isFinite);
  const maxLoad = Math.max(1e-9, ...finite);
  const finiteShare = finite.length < sorted.length ? FINITE_SHARE_WITH_INFINITE : 1;
  const maxMs = Math.max(1, ...sorted.flatMap((p) => SERIES.map((series) => series.value(p) ?? 0)));
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (load: number) =>
    MARGIN.left + (Number.isFinite(load) ? (load / maxLoad) * finiteShare : INFINITE_AT) * plotWidth;
  const y = (ms: number) => MARGIN.top + plotHeight - (ms / maxMs) * plotHeight;
  const fixed = (n: number) => n.toFixed(1);
  const lines = SERIES.map((series) => {
    const path = sorted
      .flatMap((p) => {
        const ms = series.value(p);
        return ms === undefined ? [] : [`${fixed(x(p.load))},${fixed(y(ms))}`];
      })
      .join(" ");
    return `<polyline fill="none" stroke="${series.color}" stroke-width="2" points="${path}"/>`;
  });
  const ticks = [0, 0.25, 0.5, 0.75, 1].flatMap((share) => [
    `<text x="${MARGIN.left - 6}" y="${fixed(y(share * maxMs) + 4)}" text-anchor="end">${Math.round(share * maxMs)}</text>`,
    `<line x1="${MARGIN.left}" x2="${MARGIN.left + plotWidth}" y1="${fixed(y(share * maxMs))}" y2="${fixed(y(share * maxMs))}" stroke="#e5e7eb"/>`,
  ]);
  const loadTicks = sorted.map(
    (p) =>
      `<text x="${fixed(x(p.load))}" y="${MARGIN.top + plotHeight + 18}" text-anchor="middle">${Number.isFinite(p.load) ? p.load : "inf"}</text>`,
  );
  const legend = SERIES.map(
    (series, i) =>
      `<rect x="${WIDTH - MARGIN.right + 16}" y="${MARGIN.top + i * 20}" width="12" height="12" fill="${series.color}"/><text x="${WIDTH - MARGIN.right + 34}" y="${MARGIN.top + i * 20 + 11}">${series.name}</text>`,
  );
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    ...ticks,
    `<line x1="${MARGIN.left}" x2="${MARGIN.left}" y1="${MARGIN.top}" y2="${MARGIN.top + plotHeight}" stroke="#111827"/>`,
    `<line x1="${MARGIN.left}" x2="${MARGIN.left + plotWidth}" y1="${MARGIN.top + plotHeight}" y2="${MARGIN.top + plotHeight}" stroke="#111827"/>`,
    ...lines,
    ...loadTicks,
    `<text x="${MARGIN.left + plotWidth / 2}" y="${HEIGHT - 8}" text-anchor="middle">${escapeXml(loadName)}</text>`,
    `<text x="16" y="${MARGIN.top + plotHeight / 2}" text-anchor="middle" transform="rotate(-90 16 ${MARGIN.top + plotHeight / 2})">latency (ms)</text>`,
    ...legend,
    "</svg>",
    "",
  ].join("\n");
}
