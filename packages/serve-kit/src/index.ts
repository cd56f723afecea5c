// The public surface of @finetune-studio/serve-kit. What only the studio-serve CLI needs is in
// ./internal-entry.ts (`@finetune-studio/serve-kit/internal`, not API); the helpers in ./internal/ are not API.

export { DEFAULT_SCALE_SIGNALS, type ScaleSignals, type ScalingRange } from "./autoscale/index.js";
export {
  arrivalTimesMs,
  type BenchMetrics,
  type BenchRequestRecord,
  type BenchSlo,
  type CapacityAnswer,
  type ChatTurnMessage,
  type Conversation,
  type ConversationWorkload,
  type ConversationWorkloadOptions,
  capacityFromSweep,
  computeBenchMetrics,
  conversationWorkload,
  type LatencySummary,
  latencyChartSvg,
  parseSlo,
  percentile,
  type SweepPoint,
  timePerOutputToken,
  turnMessages,
} from "./bench/index.js";
export {
  buildDockerCommand,
  DEFAULT_HF_CACHE_VOLUME,
  DEFAULT_VLLM_IMAGE,
  type DockerOptions,
} from "./docker-command.js";
export { ServeConfigError } from "./errors.js";
export {
  type HaproxyConfigOptions,
  haproxyConfig,
} from "./front-door/haproxy-config.js";
export { type NginxConfigOptions, nginxConfig } from "./front-door/nginx-config.js";
export { MAX_LORA_RANKS, type MaxLoraRank, maxLoraRankFor } from "./max-lora-rank.js";
export {
  DEFAULT_DASHBOARD_UID,
  type GrafanaDashboard,
  type GrafanaDashboardOptions,
  grafanaDashboard,
} from "./monitoring/grafana-dashboard.js";
export {
  DEFAULT_PROMETHEUS_RULES_FILE,
  FRONT_DOOR_JOB,
  type PrometheusConfigOptions,
  prometheusConfig,
} from "./monitoring/prometheus-config.js";
export {
  PROMETHEUS_ALERTS,
  type PrometheusRulesOptions,
  type PrometheusThresholds,
  prometheusRules,
} from "./monitoring/prometheus-rules.js";
export {
  DEFAULT_SLO_OBJECTIVE,
  SLO_BURN_RATE_ALERTS,
  SLO_WINDOWS,
  type SloName,
  type SloRulesOptions,
  type SloTarget,
  type SloWindow,
  sloRules,
  sloSeries,
  sloTargets,
} from "./monitoring/slo-rules.js";
export { VLLM_BUCKETS, VLLM_METRICS } from "./monitoring/vllm-metric-names.js";
export {
  type LatencyPercentiles,
  MAX_MODELS_SUMMARISED,
  type MetricsScrape,
  type PrefixCacheHitRate,
  type ReadableVllmMetrics,
  type SloAttainment,
  type SummaryOptions,
  summarizeVllmMetrics,
  type UnreadableVllmMetrics,
  type VllmLoad,
  type VllmMetricsSummary,
} from "./monitoring/vllm-summary.js";
export {
  ENGINE_OPTION_LIST,
  ENGINE_OPTIONS,
  type EngineOption,
  type EngineOptionKey,
  type EngineOptionValues,
  type FullEngineOptions,
  type LoraEngineOptions,
  VLLM_DTYPES,
  type VllmBlockSize,
  type VllmDefault,
  type VllmDtype,
  type VllmQuantizationMethod,
} from "./options/engine-options.js";
export {
  findGpuModel,
  GPU_MODELS,
  type GpuModel,
  KNOWN_ARCHITECTURES,
  KV_CACHE_DTYPES,
  type KvCacheGroup,
  type LayerKvSpec,
  type LoraMemory,
  type PlanEnvironment,
  type PlanFigure,
  type PlanGpu,
  type PlanKvCache,
  type PlanModel,
  type PlanSettings,
  type PlanVerdict,
  planServe,
  type ServePlan,
  VLLM_PLAN_COMMIT,
} from "./plan/index.js";
export {
  type FineTunedWeights,
  type ServeFromRecommendationsOptions,
  serveConfigFromRecommendations,
} from "./recommendations.js";
export type { RoutingPolicy } from "./routing.js";
export { buildServeCommand } from "./serve-command.js";
export type {
  FullServeOptions,
  ListenAddress,
  LoraAdapter,
  LoraServeOptions,
  ServeClientConfig,
  ServeCommand,
  ServeOptions,
} from "./serve-options.js";
export { LORA_ADAPTER_API_VERSION, VLLM_STACK_CHART } from "./stack/chart.js";
export { buildStackDashboard, type DashboardConfigMap } from "./stack/dashboard-config-map.js";
export { buildLoraAdapterResource, buildLoraAdapterResources } from "./stack/lora-adapter-resource.js";
export {
  buildStackScaledObject,
  type ScaledObjectTrigger,
  type StackScaledObject,
} from "./stack/scaled-object.js";
export {
  buildStackCommands,
  type SecretSource,
  type StackCommand,
  type StackCommandFiles,
  type StackCommands,
} from "./stack/stack-commands.js";
export { STACK_OPTION_LIST, STACK_OPTIONS } from "./stack/stack-option-table.js";
export type { StackCli, StackDefault, StackOption, StackOptionKey } from "./stack/stack-option-types.js";
export type {
  LoraAdapterResource,
  SecretKeyReference,
  StackAdapterLoading,
  StackDtype,
  StackModelSpec,
  StackOptions,
  StackRouting,
  StackRoutingLogic,
  StackStorage,
  StackValues,
} from "./stack/stack-options.js";
export { buildStackValues } from "./stack/stack-values.js";
