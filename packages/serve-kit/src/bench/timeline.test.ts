import { describe, expect, it } from "vitest";
import { percentile } from "./metrics.js";
import { parseStages } from "./stages.js";
import { buildTimeline, FLEET_LOOKBACK_MS, type TimelineRequest, timelineCsv } from "./timeline.js";
import { niceMax, timelineSvg } from "./timeline-chart.js";

const ok = (startMs: number, ttftMs: number, latencyMs: number): TimelineRequest => ({
  ok: true,
  startMs,
  ttftMs,
  latencyMs,
});
const failed = (startMs: number, latencyMs: number): TimelineRequest => ({
  ok: false,
  startMs,
  ttftMs: 0,
  latencyMs,
});

describe("buildTimeline", () => {
  // Second 0: A and B sent; A's first token at 0.3 s. Second 1: C sent, B's first token (1.1 s), A answered
  // (1.2 s). Second 2: nothing happens. Second 3: B answered (3.0 s), C failed (3.5 s).
  const requests = [ok(100, 200, 1100), ok(900, 200, 2100), failed(1500, 2000)];

  it("counts each request in the second it was sent, answered or failed", () => {
    const rows = buildTimeline(requests);
    expect(rows.map(({ second, sent, answered, failed }) => [second, sent, answered, failed])).toEqual([
      [0, 2, 0, 0],
      [1, 1, 1, 0],
      [2, 0, 0, 0],
      [3, 0, 1, 1],
    ]);
  });

  it("takes TTFT in the second the first token came, and leaves a second without one unknown", () => {
    const rows = buildTimeline(requests);
    expect(rows.map((row) => row.ttftP50Ms)).toEqual([200, 200, null, null]);
    expect(rows.map((row) => row.ttftP95Ms)).toEqual([200, 200, null, null]);
  });

  it("a failed request has no TTFT, however early it failed", () => {
    const rows = buildTimeline([failed(0, 10), ok(0, 900, 950)]);
    expect(rows).toEqual([
      {
        second: 0,
        sent: 2,
        answered: 1,
        failed: 1,
        ttftP50Ms: 900,
        ttftP95Ms: 900,
        serving: null,
        queue: null,
      },
    ]);
  });

  it("TTFT percentiles by the bench metrics' rule (numpy's linear interpolation)", () => {
    const ttfts = [100, 120, 150, 400, 900];
    const rows = buildTimeline(ttfts.map((ttft, index) => ok(index, ttft, 990)));
    // Sorted 100..900: p50 is 150; p95 at rank 3.8 is 400 + 0.8 × 500 = 800.
    expect(rows[0]?.ttftP50Ms).toBe(150);
    expect(rows[0]?.ttftP95Ms).toBeCloseTo(800, 9);
    expect(rows[0]?.ttftP95Ms).toBe(percentile(ttfts, 95));
  });

  it("reads the fleet as an instant query does: the last sample by the second's end, within the lookback", () => {
    const fleet = [
      { timeMs: 1500, serving: 1, queue: 0 },
      { timeMs: 3200, serving: 2, queue: 7 },
      { timeMs: 3900, serving: 3, queue: 4 },
    ];
    const rows = buildTimeline([], fleet, 6000);
    expect(rows.map((row) => [row.serving, row.queue])).toEqual([
      [null, null],
      [1, 0],
      [1, 0],
      [3, 4],
      [3, 4],
      [3, 4],
    ]);
    const stale = buildTimeline([], [{ timeMs: 0, serving: 1, queue: 0 }], FLEET_LOOKBACK_MS + 1000);
    expect(stale.at(-2)?.serving).toBe(1);
    expect(stale.at(-1)?.serving).toBeNull();
  });

  it("an unknown queue stays unknown in its seconds: neither 0 nor the sample before it", () => {
    const fleet = [
      { timeMs: 500, serving: 2, queue: 3 },
      { timeMs: 1500, serving: 2, queue: null },
    ];
    const rows = buildTimeline([], fleet, 2000);
    expect(rows.map((row) => [row.serving, row.queue])).toEqual([
      [2, 3],
      [2, null],
    ]);
    expect(timelineCsv(rows).split("\n")[2]).toBe("1,0,0,0,,,2,");
  });

  it("an unknown sample (the fleet not read) ends the last one's reign, as a staleness marker does", () => {
    const fleet = [
      { timeMs: 500, serving: 2, queue: 3 },
      { timeMs: 1500, serving: null, queue: null },
    ];
    const rows = buildTimeline([], fleet, 4000);
    expect(rows.map((row) => [row.serving, row.queue])).toEqual([
      [2, 3],
      [null, null],
      [null, null],
      [null, null],
    ]);
  });

  it("runs to the given duration when it is longer than the events, and is empty without either", () => {
    expect(buildTimeline([ok(0, 10, 20)], [], 3000)).toHaveLength(3);
    expect(buildTimeline([ok(0, 10, 20)], [], 2500)).toHaveLength(3);
    expect(buildTimeline([])).toEqual([]);
  });

  it("leaves out an event at a negative time (a clock gone wrong) rather than move it", () => {
    const rows = buildTimeline([ok(-2000, 10, 2500)]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ sent: 0, answered: 1 });
  });
});

describe("timelineCsv", () => {
  it("writes a header and one row a second, an unknown figure as an empty field", () => {
    const rows = buildTimeline(
      [ok(100, 123.456, 500), failed(1200, 100)],
      [{ timeMs: 1000, serving: 2, queue: 5 }],
    );
    expect(timelineCsv(rows)).toBe(
      [
        "second,sent,answered,failed,ttft_p50_ms,ttft_p95_ms,serving,queue",
        "0,1,1,0,123.5,123.5,,",
        "1,1,0,1,,,2,5",
        "",
      ].join("\n"),
    );
    expect(timelineCsv([])).toBe("second,sent,answered,failed,ttft_p50_ms,ttft_p95_ms,serving,queue\n");
  });
});

describe("timelineSvg", () => {
  const stages = parseStages("1:2s,4:2s");
  const requests = [ok(0, 100, 500), ok(1000, 150, 300), ok(2100, 400, 600), failed(3000, 100)];
  const fleet = [
    { timeMs: 500, serving: 1, queue: 0 },
    { timeMs: 2500, serving: 2, queue: 3 },
  ];
  const svg = timelineSvg(buildTimeline(requests, fleet, 4000), { stages, title: "step <load> & fleet" });

  it("is a self-contained SVG with its title escaped", () => {
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg" ')).toBe(true);
    expect(svg.trimEnd().endsWith("</svg>")).toBe(true);
    expect(svg).toContain("step &lt;load&gt; &amp; fleet");
    expect(svg).not.toMatch(/<script|href=|NaN|Infinity|undefined/);
  });

  it("draws sent, answered, failed, TTFT p95 and p50, and the fleet's serving and waiting", () => {
    const titles = [...svg.matchAll(/<path [^>]*><title>([^<]+)<\/title>/g)].map((match) => match[1]);
    expect(titles).toEqual([
      "sent",
      "answered",
      "failed",
      "instances serving",
      "TTFT p95",
      "TTFT p50",
      "waiting",
    ]);
  });

  it("draws the instances serving as a step line: 1 over the first two seconds, 2 over the last two", () => {
    const serving = /d="([^"]*)"><title>instances serving</.exec(svg)?.[1] ?? "";
    // 4 seconds over 664 px from x 64; the right axis ends at niceMax(2) = 2 over 190 px from y 56.
    expect(serving).toBe("M64.0 151.0 H230.0 V 151.0 H396.0 V 56.0 H562.0 V 56.0 H728.0");
  });

  it("leaves a gap where a second has no figure, rather than draw through it", () => {
    const p95 = /d="([^"]*)"><title>TTFT p95</.exec(svg)?.[1] ?? "";
    // First tokens in seconds 0, 1 and 2; none in 3: three points and no fourth.
    expect(p95.split(/[ML]/).filter((part) => part !== "")).toHaveLength(3);
    const gap = timelineSvg(buildTimeline([ok(0, 10, 20), ok(2000, 10, 20)]));
    const withGap = /d="([^"]*)"><title>TTFT p95</.exec(gap)?.[1] ?? "";
    expect(withGap.match(/M/g)).toHaveLength(2);
  });

  it("marks the boundary between the stages and labels each with its rate", () => {
    expect(svg.match(/stroke-dasharray="4 4"/g)).toHaveLength(1);
    expect(svg).toContain('<line x1="396.0" x2="396.0"');
    expect(svg).toContain(">1 req/s</text>");
    expect(svg).toContain(">4 req/s</text>");
  });

  it("says so when there is nothing to draw", () => {
    expect(timelineSvg([])).toContain(">no requests</text>");
  });

  it("ends each axis at 1, 2 or 5 times a power of ten", () => {
    expect([0, 0.4, 1, 1.5, 3, 7, 10, 11, 480].map(niceMax)).toEqual([1, 1, 1, 2, 5, 10, 10, 20, 500]);
  });
});
