import type { RoutingPolicy } from "../routing.js";

// The lines haproxyConfig adds for session and prefix routing. Requests that carry an affinity key go to a
// second backend that hashes the key onto the same instances; the others stay least-busy. Its servers
// track the first backend's, so a health check, a drain or a maintenance set there applies to both.

/** The backend that hashes the affinity key. */
export const AFFINITY_BACKEND = "vllm_affinity";

/**
 * HAProxy's bounded load (`hash-balance-factor`, in percent): an instance takes a key's request only while
 * it serves fewer than this share of the average load; past it the key moves to the next instance on the
 * ring. HAProxy rounds the fleet's slots up, so a few requests in flight leave some slack. Measured in the
 * repository's routing bench (launch --instances 4 --routing session, 128 people reading each answer before
 * the next turn, 192 skewed conversations): 150 kept 1.01x the oracle's hit rate with the busiest instance
 * at 1.09-1.16x the mean requests; 125 spilled more keys (0.95x, busiest 1.12x); with no bound at all the
 * busiest took 1.31-1.54x. 200 let it take 1.33x with 32 callers.
 */
export const HASH_BALANCE_FACTOR = 150;

/**
 * Each server's weight on the hash ring: HAProxy places 16 points per weight unit, so weight 1 leaves the
 * ring lumpy (one of four instances took 41% of sessions in a trial); equal weights keep shares equal.
 */
const RING_WEIGHT = 64;

/** The frontend's rules: which key, if any, a request carries. */
export function affinityFrontendLines(routing: RoutingPolicy, sessionHeader: string): string[] {
  if (routing === "least-busy") return [];
  const noKey = "!{ var(txn.affinity) -m found }";
  return [
    "    # A request's affinity key: its session header, or (prefix routing) the start of its conversation.",
    `    http-request set-var(txn.affinity) req.hdr(${sessionHeader}) if { req.hdr(${sessionHeader}) -m found }`,
    ...(routing === "prefix"
      ? [
          "    # The body is read before routing; the key is the first user message, after a system prompt:",
          "    # what every later turn of the conversation starts with.",
          "    option http-buffer-request",
          `    http-request set-var(txn.first_role) req.body,json_query('$.messages[0].role') if ${noKey}`,
          `    http-request set-var(txn.affinity) req.body,json_query('$.messages[1].content') if ${noKey} { var(txn.first_role) -m str system }`,
          `    http-request set-var(txn.affinity) req.body,json_query('$.messages[0].content') if ${noKey}`,
        ]
      : []),
    `    use_backend ${AFFINITY_BACKEND} if { var(txn.affinity) -m found }`,
  ];
}

/** The backend that sends each key to one instance, with bounded load, tracking `backend`'s servers. */
export function affinityBackendLines(
  routing: RoutingPolicy,
  backend: string,
  servers: readonly { name: string; address: string }[],
  maxNumSeqs: number,
): string[] {
  if (routing === "least-busy") return [];
  return [
    "",
    `backend ${AFFINITY_BACKEND}`,
    "    # Consistent hashing: draining or restarting one instance moves only the keys it held. Bounded load:",
    `    # no instance takes more than ${HASH_BALANCE_FACTOR}% of the average; past it, a key spills to the next one.`,
    "    balance hash var(txn.affinity)",
    "    hash-type consistent",
    `    hash-balance-factor ${HASH_BALANCE_FACTOR}`,
    ...servers.map(
      ({ name, address }) =>
        `    server ${name} ${address} track ${backend}/${name} weight ${RING_WEIGHT} maxconn ${maxNumSeqs}`,
    ),
  ];
}
