// How much of a stretch of work went to the garbage collector, from Node's own `gc` performance entries.
// It tells a helper that does more steps per node apart from one whose result is simply big to keep.
import { PerformanceObserver } from "node:perf_hooks";

export async function withGcTime<T>(work: () => T): Promise<{ result: T; elapsedMs: number; gcMs: number }> {
  const pauses: { startTime: number; duration: number }[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      pauses.push({ startTime: entry.startTime, duration: entry.duration });
  });
  observer.observe({ entryTypes: ["gc"] });
  const started = performance.now();
  const result = work();
  const ended = performance.now();
  // The entries are delivered asynchronously: let them arrive before counting.
  await new Promise((resolve) => setTimeout(resolve, 20));
  observer.disconnect();
  const gcMs = pauses
    .filter((pause) => pause.startTime >= started && pause.startTime < ended)
    .reduce((sum, pause) => sum + pause.duration, 0);
  return { result, elapsedMs: ended - started, gcMs };
}
