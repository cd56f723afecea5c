import { readFileSync } from "node:fs";
import { probePort } from "@finetune-studio/internal";

/**
 * The ports from 10,000 up that the Fetch standard's "bad port" list blocks (Node's fetch follows it): CI
 * once drew 10080 for a test server, and fetch failed with "bad port".
 */
export const FETCH_BLOCKED_PORTS: readonly number[] = [10_080];

/** A free TCP port on loopback, below the OS's ephemeral range (see getFreePortFollowedBy for why). */
export function getFreePort(): Promise<number> {
  return getFreePortFollowedBy(0);
}

/**
 * A free port P whose next `following` ports are free too: `launch --instances N` puts its instances on
 * P+1..P+N, so tests and benches running side by side must not hand one launch's instance port to another.
 * P is taken below the range the OS draws from for `listen(0)` and outgoing connections: a launch binds its
 * front door only once its instances are up, seconds later, and a port from that range can be handed to
 * any socket in between (CI saw HAProxy fail with "Address already in use" on one). `random` draws the
 * candidates; a test can pass its own.
 */
export async function getFreePortFollowedBy(following: number, random = Math.random): Promise<number> {
  const [low, high] = [10_000, firstEphemeralPort() - 1 - following];
  for (let tries = 0; tries < 1_000 && high > low; tries++) {
    const port = low + Math.floor(random() * (high - low + 1));
    // fetch refuses a few ports outright ("bad port"): a run holding one would fail the test that calls it.
    if (FETCH_BLOCKED_PORTS.some((blocked) => blocked >= port && blocked <= port + following)) continue;
    const run = Array.from({ length: following + 1 }, (_, i) => probePort("127.0.0.1", port + i));
    if ((await Promise.all(run)).every((state) => state.state === "free")) return port;
  }
  throw new Error(
    `no free run of ${following + 1} ports on 127.0.0.1 between ${low} and ${high + following}`,
  );
}

/** Where Linux starts drawing ports for `listen(0)` and outgoing connections; its default when unreadable. */
export function firstEphemeralPort(): number {
  try {
    const first = Number(
      readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0],
    );
    if (Number.isInteger(first) && first > 0) return first;
  } catch {
    // Not Linux, or not readable: the default below.
  }
  return 32_768;
}
