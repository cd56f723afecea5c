// @finetune-studio/serve-kit/internal: what only the studio-serve CLI needs (how it addresses the HAProxy it
// runs, sizes its front door by what vLLM batches, reads safetensors headers, checks its listen flags). Not API: it may change in
// any release. It is built on its own (tsdown.config.ts), and its errors are the public entry's class.

export {
  connectionsWithinFileLimit,
  defaultMaxConnections,
  HAPROXY_BACKEND,
  haproxyServerName,
  MAX_FRONT_CONNECTIONS,
} from "./front-door/haproxy-config.js";
export { checkListenAddress } from "./listen-address.js";
export { checkObjective } from "./monitoring/slo-rules.js";
export { vllmDefaultOf, vllmDefaultText } from "./options/engine-options.js";
export { safetensorsHeaderBytes, safetensorsLmHeadBytes } from "./plan/index.js";
export {
  checkRoutingPolicy,
  checkSessionHeader,
  DEFAULT_SESSION_HEADER,
  ROUTING_POLICIES,
} from "./routing.js";
