import { callLoraRoute } from "../lora-routes.js";
import type { Fleet } from "./fleet.js";
import { type Instance, startInstance, stopInstance } from "./instance.js";
import { leastBusyReady } from "./relay.js";

/** How long a reload waits for an instance's open requests to finish before it restarts it anyway. */
const DRAIN_TIMEOUT_MS = 600_000;
/**
 * Test only: restart each instance with a plain SIGTERM, without moving its traffic first, to show the
 * failures the drain prevents. Never documented; nothing else reads it.
 */
const TEST_ONLY_NO_DRAIN = "STUDIO_SERVE_TEST_ONLY_NO_DRAIN";

/**
 * Restarts the instances one at a time while the others serve. For each: its relay sends new requests to
 * the ready instance with the fewest open ones; once its own open requests are done (vLLM cuts them on
 * SIGTERM, it does not drain), its process group gets TERM, the grace, KILL; it starts again with the same
 * argv, environment, port and GPU (so vLLM reads the weights again), must serve, gets the runtime adapters
 * back, answers a one-token completion, and only then takes its traffic back. An instance that does not
 * come back stops the reload: its relay keeps sending to the healthy ones.
 */
export async function rollingReload(
  fleet: Fleet,
  say: (line: string) => void,
  watch: (fleet: Fleet, instance: Instance) => void,
): Promise<boolean> {
  const { instances, routing, io } = fleet;
  if (instances.length < 2) {
    say(
      "reload: refused with one instance (requests would fail while it restarts): use --instances 2 or more",
    );
    return false;
  }
  const drain = io.env[TEST_ONLY_NO_DRAIN] !== "1";
  say(`reload: restarting ${instances.length} instances one at a time`);
  for (const instance of instances) {
    const i = instance.index;
    const where = `instance ${i} (port ${routing.ports[i]}, GPU ${instance.gpu})`;
    if (fleet.stop.signal.aborted) return false;
    if (drain) {
      const other = leastBusyReady(routing, i);
      if (other === undefined) {
        say(`reload: ${where}: no other instance is ready to take its requests; stopping the reload`);
        return false;
      }
      routing.ready[i] = false;
      routing.target[i] = other;
      say(
        `reload: ${where}: its requests go to instance ${other}; waiting for its ${routing.inflight[i]} open requests`,
      );
      const done = await drained(fleet, i);
      // A stop (Ctrl-C) during the wait cancels the reload: nothing is restarted after it.
      if (fleet.stop.signal.aborted) return cancelled(say);
      if (!done) {
        say(`reload: ${where}: requests still open after ${DRAIN_TIMEOUT_MS / 1000} s; restarting anyway`);
      }
    }
    instance.restarting = true;
    const before = instance.vllm?.group.pgid;
    await stopInstance(instance, "reload");
    if (fleet.stop.signal.aborted) {
      instance.restarting = false;
      return cancelled(say);
    }
    say(`reload: ${where}: stopped${before === undefined ? "" : ` (pid ${before})`}; starting it again`);
    const problem = await startInstance(instance, fleet.stop.signal);
    const reapplied = problem === undefined ? await reapplyAdapters(fleet, instance, say) : false;
    instance.restarting = false;
    if (problem !== undefined || !reapplied) {
      say(
        `reload: ${where}: did not come back (${problem ?? "its adapters could not be loaded again"}); its relay keeps sending to the healthy instances. Reload stopped.`,
      );
      await instance.vllm?.shutDown();
      return false;
    }
    watch(fleet, instance);
    routing.ready[i] = true;
    routing.target[i] = i;
    const pid = instance.vllm?.group.pgid;
    instance.prepared?.events.write({ event: "restarted", pid, pgid: pid, reason: "reload" });
    say(`reload: ${where}: serves again (pid ${pid})`);
  }
  say("reload: done, every instance restarted");
  return true;
}

function cancelled(say: (line: string) => void): false {
  say("reload: cancelled, launch is stopping");
  return false;
}

/** Waits until instance i has no open request, within the bound; false when the bound passed. */
function drained(fleet: Fleet, i: number): Promise<boolean> {
  return new Promise((resolve) => {
    const finish = (done: boolean) => {
      clearTimeout(timer);
      fleet.settled = () => {};
      fleet.stop.signal.removeEventListener("abort", onAbort);
      resolve(done);
    };
    const onAbort = () => finish(false);
    const timer = setTimeout(() => finish(false), DRAIN_TIMEOUT_MS);
    fleet.stop.signal.addEventListener("abort", onAbort, { once: true });
    fleet.settled = () => {
      if (fleet.routing.inflight[i] === 0) finish(true);
    };
    fleet.settled();
  });
}

async function reapplyAdapters(
  fleet: Fleet,
  instance: Instance,
  say: (line: string) => void,
): Promise<boolean> {
  for (const [name, path] of fleet.adapters) {
    const result = await callLoraRoute(
      instance.plan.built.client.rootURL,
      "load",
      { lora_name: name, lora_path: path },
      { ...(fleet.apiKey === undefined ? {} : { apiKey: fleet.apiKey }), timeoutMs: 120_000 },
    );
    say(
      `reload: instance ${instance.index}: adapter ${name} ${result.ok ? "loaded again" : `failed: ${result.message}`}`,
    );
    if (!result.ok) return false;
  }
  return true;
}
