// The pure half of a load test (the CLI's `studio-serve bench` does the I/O): vLLM's metric definitions, its
// arrival schedule, SLOs, the capacity a sweep shows, and a chart.
export { type CapacityAnswer, capacityFromSweep, type SweepPoint } from "./capacity.js";
export { latencyChartSvg } from "./chart.js";
export {
  type ChatTurnMessage,
  type Conversation,
  type ConversationWorkload,
  type ConversationWorkloadOptions,
  conversationWorkload,
  turnMessages,
} from "./conversations.js";
export {
  type BenchMetrics,
  type BenchRequestRecord,
  type BenchSlo,
  computeBenchMetrics,
  type LatencySummary,
  percentile,
  timePerOutputToken,
} from "./metrics.js";
export { arrivalTimesMs } from "./schedule.js";
export { parseSlo } from "./slo.js";
