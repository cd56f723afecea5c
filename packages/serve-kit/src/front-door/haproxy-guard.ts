// The front door refuses vLLM's control endpoints: they steer the engine (sleep, wake, reset caches, run a
// method on every worker, swap weights) and are for the supervisor alone, which calls each instance on its
// own port. Most exist only with VLLM_SERVER_DEV_MODE=1, which sleep mode needs; the front door refuses
// them always, so a fleet started in dev mode by hand is covered too.

/**
 * vLLM's control paths, from its API server (vllm/entrypoints/openai/api_server.py up to 0.11, then
 * vllm/entrypoints/serve/dev/{sleep,cache,rpc,server_info,rlhf}/api_router.py): the dev-mode routes, and the
 * elastic-EP and profiler routes that steer the engine without dev mode.
 */
export const VLLM_CONTROL_PATHS = [
  // Sleep mode.
  "/sleep",
  "/wake_up",
  "/is_sleeping",
  // Caches.
  "/reset_prefix_cache",
  "/reset_mm_cache",
  "/reset_encoder_cache",
  // A method run on every worker, and the engine's whole configuration.
  "/collective_rpc",
  "/server_info",
  // RLHF: pausing the engine and swapping its weights.
  "/pause",
  "/resume",
  "/is_paused",
  "/abort_requests",
  "/init_weight_transfer_engine",
  "/start_weight_update",
  "/start_draft_weight_update",
  "/update_weights",
  "/finish_weight_update",
  "/update_weight_version",
  "/weight_info",
  "/weight_checker",
  "/get_world_size",
  "/reconfigure",
  // Without dev mode: elastic expert parallelism and the profiler.
  "/scale_elastic_ep",
  "/is_scaling_elastic_ep",
  "/start_profile",
  "/stop_profile",
] as const;

/**
 * The frontend's rules that refuse the control paths with 403, however the path is spelled. vLLM's server
 * (uvicorn, then Starlette's router) decodes the path's percent-escapes once (`%2F` too) and matches it
 * exactly: case, slashes and dots as written, a trailing slash redirected. The front door decodes once as
 * it does, folds case, merges repeated slashes and drops trailing slashes and dots, then refuses a control
 * path or anything under it; and it refuses every path with a `.` or `..` segment, which no API path has
 * and clients remove before sending (RFC 3986, 5.2.4).
 */
export function controlEndpointLines(): string[] {
  return [
    "    # vLLM's control endpoints (sleep, wake_up, collective_rpc, cache resets, ...) are for the supervisor,",
    "    # which calls each instance on its own port: refused here however the path is spelled.",
    "    http-request set-var(txn.route) path,url_dec,lower,regsub(/+,/,g)",
    "    http-request deny deny_status 403 if { var(txn.route) -m reg (^|/)[.][.]?(/|$) }",
    "    http-request set-var(txn.route) var(txn.route),regsub([/.]+$,)",
    `    http-request deny deny_status 403 if { var(txn.route) -m str ${VLLM_CONTROL_PATHS.join(" ")} }`,
    `    http-request deny deny_status 403 if { var(txn.route) -m beg ${VLLM_CONTROL_PATHS.map((path) => `${path}/`).join(" ")} }`,
  ];
}
