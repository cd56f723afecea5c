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
 * The frontend's rules that refuse the control paths with 403, however vLLM would read the path. vLLM's
 * server (uvicorn, then Starlette's router) decodes the path's percent-escapes once (`%2F` too) and matches
 * it exactly, case included (`/SLEEP` is a 404 there), a trailing slash redirected. The front door refuses a
 * control path and anything under it; a path with a `%`, `//` or `/.` in it or a trailing `/` or `.` is
 * first decoded once as vLLM does, its repeated slashes merged and its trailing slashes and dots dropped,
 * and refused if that is a control path; a path with a `.` or `..` segment, which no API path has and
 * clients remove before sending (RFC 3986, 5.2.4), is refused. Only such odd paths pay for the decoding and
 * the regular expressions, and each check runs once per request. Measured under callgrind (bench's
 * instructions.ts): HAProxy with the front door's limits alone spends about 32,000 instructions on a
 * streamed request; this guard adds about 3,200 to it (a first version that checked every path with every
 * rule added 8,700).
 */
export function controlEndpointLines(): string[] {
  // A path's first segment names the endpoint: `/sleep` and `/sleep/...` alike, `/sleepy` not.
  const names = VLLM_CONTROL_PATHS.map((path) => path.slice(1)).join(" ");
  const route = "var(txn.route)";
  return [
    "    # vLLM's control endpoints (sleep, wake_up, collective_rpc, cache resets, ...) are for the supervisor,",
    "    # which calls each instance on its own port: refused here however vLLM would read the path.",
    `    http-request deny deny_status 403 if { path,field(2,/) -m str ${names} }`,
    "    # An odd path (escapes, repeated slashes, dot segments, a trailing slash or dot) is read as vLLM reads it.",
    "    http-request set-var(txn.route) path,url_dec,regsub(/+,/,g) if { path -m sub % // /. } || { path -m end / . }",
    `    http-request deny deny_status 403 if { ${route} -m reg (^|/)[.][.]?(/|$) }`,
    `    http-request set-var(txn.route) ${route},regsub([/.]+$,) if { ${route} -m found }`,
    `    http-request deny deny_status 403 if { ${route},field(2,/) -m str ${names} }`,
  ];
}
