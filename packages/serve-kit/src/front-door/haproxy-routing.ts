import type { RoutingPolicy } from "../routing.js";

// The lines haproxyConfig adds for session and prefix routing. Every request goes through the one backend,
// whose servers hold each instance's one bound (maxconn = --max-num-seqs) and whose leastconn sees every
// request an instance serves, routed by key or not. A request that carries an affinity key is sent to its
// key's instance with `use-server` while that instance is up, not draining and under the bounded load; past
// the bound, to the key's second instance; past both, to the least busy one, as a request without a key.

/**
 * The load bound of consistent hashing with bounded loads (Mirrokni et al.), in percent, as HAProxy's
 * `hash-balance-factor` has it: an instance takes a key's request only while it serves fewer than this share
 * of the average load. Measured in the repository's routing bench (launch --instances 4 --routing session,
 * 128 people reading each answer before the next turn, 192 skewed conversations): 150 kept 1.01x the
 * oracle's hit rate with the busiest instance at 1.09-1.16x the mean requests; 125 spilled more keys (0.95x,
 * busiest 1.12x); with no bound at all the busiest took 1.31-1.54x. 200 let it take 1.33x with 32 callers.
 */
export const HASH_BALANCE_FACTOR = 150;

/** The frontend's rules: which key, if any, a request carries. */
export function affinityFrontendLines(routing: RoutingPolicy, sessionHeader: string): string[] {
  if (routing === "least-busy") return [];
  return [
    "    # A request's affinity key: its session header, or (prefix routing) the start of its conversation.",
    `    http-request set-var(txn.affinity) req.hdr(${sessionHeader}) if { req.hdr(${sessionHeader}) -m found }`,
    ...(routing === "prefix" ? prefixKeyLines() : []),
  ];
}

/**
 * Prefix routing's key: the first user message, after a system prompt (what every later turn of the
 * conversation starts with). HAProxy reads a body only as far as its buffer holds (tune.bufsize, 16 KB,
 * less 1 KB kept for rewrites): a longer body is cut, its JSON cannot be parsed, and its key is then the
 * part HAProxy holds, the first 15 KB or so of the body (the model, and the prompt as far as it goes).
 * Conversations whose bodies agree that far share a key.
 */
function prefixKeyLines(): string[] {
  const noKey = "!{ var(txn.affinity) -m found }";
  return [
    "    # The body is read before routing, as far as HAProxy's buffer holds (about 15 KB).",
    "    option http-buffer-request",
    `    http-request set-var(txn.first_role) req.body,json_query('$.messages[0].role') if ${noKey}`,
    `    http-request set-var(txn.affinity) req.body,json_query('$.messages[1].content') if ${noKey} { var(txn.first_role) -m str system }`,
    `    http-request set-var(txn.affinity) req.body,json_query('$.messages[0].content') if ${noKey}`,
    "    # A body longer than the buffer is cut (no JSON to read): its start, as far as HAProxy holds it, is the key.",
    `    http-request set-var(txn.body_held) req.body_len if ${noKey}`,
    `    http-request set-var(txn.affinity) req.body if ${noKey} { req.body_size,sub(txn.body_held) gt 0 }`,
  ];
}

/**
 * The backend's rules that send a keyed request to its instance. A key's home is its hash modulo the
 * instances (fixed for the configuration: draining one moves only the keys it held), its second a
 * different instance the hash also picks. Each is taken while it is usable (up, not draining: see
 * usableTrackerLines) and under
 * HAProxy's bounded-load rule (lb_chash.c, chash_server_is_eligible) for equal weights: the backend's
 * requests, this one included, times the factor, rounded up, are its slots; an instance is eligible while
 * it serves fewer than its share of them (serving x instances < slots).
 */
export function affinityBackendLines(
  routing: RoutingPolicy,
  backend: string,
  servers: readonly { name: string }[],
): string[] {
  if (routing === "least-busy") return [];
  const count = servers.length;
  const keyed = "{ var(txn.affinity) -m found }";
  const roles = count > 1 ? (["home", "second"] as const) : (["home"] as const);
  return [
    "    # A keyed request goes to its key's instance, else its second one, else the least busy (see above).",
    `    http-request set-var(txn.key_hash) var(txn.affinity),xxh32 if ${keyed}`,
    `    http-request set-var(txn.home) var(txn.key_hash),mod(${count}) if ${keyed}`,
    ...(count > 1
      ? [
          `    http-request set-var(txn.second) var(txn.key_hash),div(${count}),mod(${count - 1}),add(1),add(txn.home),mod(${count}) if ${keyed}`,
        ]
      : []),
    `    # Bounded load (hash-balance-factor ${HASH_BALANCE_FACTOR}): slots = ceil(requests served, this one included, x ${HASH_BALANCE_FACTOR}%).`,
    `    http-request set-var(txn.queued) queue(${backend}) if ${keyed}`,
    `    http-request set-var(txn.slots) be_conn(${backend}),sub(txn.queued),mul(${HASH_BALANCE_FACTOR}),add(99),div(100) if ${keyed}`,
    `    http-request set-var(txn.usable) nbsrv(${backend}) if ${keyed}`,
    ...roles.flatMap((role) =>
      servers.map(
        ({ name }, index) =>
          `    use-server ${name} if { var(txn.${role}) -m int ${index} } { nbsrv(${usableBackend(backend, index)}) gt 0 } { srv_conn(${backend}/${name}),mul(txn.usable),sub(txn.slots) lt 0 }`,
      ),
    ),
  ];
}

/** The backend whose one server tracks instance `index`: nbsrv() of it is 1 while the instance is usable. */
function usableBackend(backend: string, index: number): string {
  return `${backend}_usable_${index}`;
}

/**
 * One backend per instance, holding a server that tracks the instance's and never takes a request. A drain
 * (`set server vllm/vllm-0 state drain`), a maintenance or a failed health check is copied to the tracking
 * server, so `nbsrv()` of its backend says whether the instance takes new requests: HAProxy 2.6 has no
 * sample fetch for a drain (srv_is_up and srv_weight stay as they were), and `use-server` alone would keep
 * sending a draining instance its keys, so a reload's drain would never end.
 */
export function usableTrackerLines(
  routing: RoutingPolicy,
  backend: string,
  servers: readonly { name: string; address: string }[],
): string[] {
  if (routing === "least-busy") return [];
  return servers.flatMap(({ name, address }, index) => [
    "",
    `backend ${usableBackend(backend, index)}`,
    `    server ${name} ${address} track ${backend}/${name}`,
  ]);
}
