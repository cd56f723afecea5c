// @finetune-studio/serve-kit/internal: what only the studio-serve CLI needs (how it addresses the HAProxy it
// runs, sizes its front door by what vLLM batches, words vLLM's adapter rank rule, reads safetensors headers,
// checks its listen flags, parses and steers an elastic fleet). Not API: it may change in any release. It is
// built on its own (tsdown.config.ts), and its errors are the public entry's class.

// Elastic serving: the autoscaler's rule, the HPA's (to play KEDA's policy in the bench), and the signals the
// supervisor reads from each instance's /metrics and keeps.
export {
  decideScale,
  describe as describeFleetSample,
  type FleetCounts,
  type FleetSample,
  type InstanceSignals,
  type ScaleDecision,
  type ScalePolicy,
} from "./autoscale/decide.js";
export { decideHpa, type HpaRulePolicy, type HpaStep } from "./autoscale/hpa-decide.js";
export { HPA_DEFAULTS, type HpaPolicy, type HpaState, hpaSync } from "./autoscale/hpa-rule.js";
export {
  DEFAULT_SCALE_DOWN_AFTER_SECONDS,
  durationText,
  isElastic,
  parseDuration,
  parseScaleSignals,
  parseScalingRange,
  type ScaleSignals,
  type ScalingRange,
} from "./autoscale/index.js";
export {
  keepSamples,
  longestWindowMs,
  MAX_KEPT_SAMPLES,
  readInstanceSignals,
  type SignalsReading,
} from "./autoscale/signals.js";
export { type StagedRequest, type StageSummary, summarizeStages } from "./bench/stage-summary.js";
// Elastic serving, seen: bench --stages (a load that changes by stage) and its per-second timeline.
export {
  type LoadStage,
  MAX_STAGED_REQUESTS,
  MAX_STAGES,
  parseStages,
  requestStages,
  stageBoundariesMs,
  stagedArrivalTimesMs,
  stageRequests,
} from "./bench/stages.js";
export {
  buildTimeline,
  type FleetSecondSample,
  type TimelineRequest,
  type TimelineRow,
  timelineCsv,
} from "./bench/timeline.js";
export { type TimelineChartOptions, timelineSvg } from "./bench/timeline-chart.js";
export {
  connectionsWithinFileLimit,
  defaultMaxConnections,
  HAPROXY_BACKEND,
  haproxyServerName,
  MAX_FRONT_CONNECTIONS,
  MIN_FRONT_CONNECTIONS,
} from "./front-door/haproxy-config.js";
export { DEFAULT_READ_TIMEOUT_SECONDS } from "./internal/upstreams.js";
export { checkListenAddress } from "./listen-address.js";
export { loraRankRefusal } from "./max-lora-rank.js";
export { DEFAULT_DASHBOARD_TITLE } from "./monitoring/grafana-dashboard.js";
export { DEFAULT_JOB_NAME, DEFAULT_SCRAPE_INTERVAL_SECONDS } from "./monitoring/prometheus-config.js";
export { THRESHOLD_DEFAULTS } from "./monitoring/prometheus-rules.js";
export { checkObjective } from "./monitoring/slo-rules.js";
export { vllmDefaultOf, vllmDefaultText } from "./options/engine-options.js";
export { safetensorsHeaderBytes, safetensorsLmHeadBytes } from "./plan/index.js";
export {
  checkRoutingPolicy,
  checkSessionHeader,
  DEFAULT_SESSION_HEADER,
  ROUTING_POLICIES,
} from "./routing.js";
export { DEFAULT_SECRET_SOURCES } from "./stack/stack-commands.js";
export { DEFAULT_API_KEY_SECRET } from "./stack/stack-option-table.js";
