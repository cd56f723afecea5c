import { describe, expect, it } from "vitest";
import { MAX_MODELS_SUMMARISED, type ReadableVllmMetrics, summarizeVllmMetrics } from "./vllm-summary.js";

// Hostile pages a server could send to `studio-serve status`: the summary stays bounded and never throws.

function readable(summary: ReturnType<typeof summarizeVllmMetrics>): ReadableVllmMetrics {
  if (!summary.readable) throw new Error(`unreadable: ${summary.reason}`);
  return summary;
}

// Behaviour, not speed: a loaded machine may take seconds over these pages, so the time limit is generous.
describe("summarizeVllmMetrics on hostile pages", { timeout: 60_000 }, () => {
  it("reads 150,000 KV-cache series without overflowing the call stack (no spread into Math.max)", () => {
    const lines = Array.from(
      { length: 150_000 },
      (_, i) => `vllm:kv_cache_usage_perc{engine="${i}"} ${i === 77_777 ? "0.93" : "0.1"}`,
    );
    const summary = readable(summarizeVllmMetrics({ text: `${lines.join("\n")}\n`, timeMs: 0 }));
    expect(summary.kvCacheUsage).toBe(0.93);
  });

  // 20,000 models took 98 s when every model re-scanned the whole page; linear, it is well under a second.
  it("summarises a page naming 20,000 models in linear time, with figures for the first 100 only", () => {
    const models = Array.from({ length: 20_000 }, (_, i) => `model-${String(i).padStart(5, "0")}`);
    const page = (running: number) =>
      models
        .flatMap((model) => [
          `vllm:num_requests_running{engine="0",model_name="${model}"} ${running}`,
          `vllm:prompt_tokens_total{engine="0",model_name="${model}"} ${running * 10}`,
        ])
        .join("\n");
    const summary = readable(
      summarizeVllmMetrics({ text: page(2), timeMs: 2000 }, { text: page(1), timeMs: 1000 }),
    );
    expect(summary.models).toHaveLength(20_000);
    expect(Object.keys(summary.perModel)).toHaveLength(MAX_MODELS_SUMMARISED);
    expect(summary.perModelOmitted).toBe(20_000 - MAX_MODELS_SUMMARISED);
    expect(summary.requestsRunning).toBe(40_000);
    expect(summary.promptTokensPerSecond).toBe(200_000);
    expect(summary.perModel["model-00000"]).toMatchObject({ requestsRunning: 2, promptTokensPerSecond: 10 });
  }, 15_000);
});
