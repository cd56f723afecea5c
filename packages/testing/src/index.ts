export { bundleForBrowser } from "./browser-bundle.js";
export { type ChatMockProcess, startChatMockProcess } from "./chat-mock/child.js";
export { type ChatSchemaCheck, chatExample, chatSchema } from "./chat-mock/contract.js";
export { type ChatMock, type ChatMockOptions, startChatMock } from "./chat-mock/server.js";
export { launchChromium } from "./chromium.js";
export { standInGpuUuid, writeStandInNvidiaSmi } from "./nvidia-smi.js";
export { getFreePort, getFreePortFollowedBy } from "./ports.js";
export { type ContractName, contracts, type PrismMock, startPrism } from "./prism.js";
export { type ManagedProcess, startProcess } from "./process.js";
export { startPrometheus } from "./prometheus.js";
export {
  findSystemTool,
  missingToolMessage,
  requireSystemTool,
  type SystemToolName,
  systemTools,
} from "./system-tools.js";
export {
  type FinishedRequest,
  pyFloat,
  VLLM_FINISH_REASONS,
  VLLM_REQUEST_LATENCY_BUCKETS,
  VLLM_TPOT_BUCKETS,
  VLLM_TTFT_BUCKETS,
  type VllmFinishReason,
  VllmMetricsPage,
  type VllmMetricsPageOptions,
} from "./vllm-metrics-page.js";
export { waitForHttp, waitForOutput } from "./wait.js";
