import { sleep } from "../shared/abortable-sleep.js";
import { messageOf } from "../shared/messages.js";
import { reapplyAdapters } from "./adapters.js";
import { openRequests, setServerState } from "./haproxy-runtime.js";
import { startInstance, stopInstance } from "./instance.js";
import type { Fleet } from "./types.js";
import { watchInstance } from "./watch.js";

/** How long a reload waits for an instance's open requests to finish before it restarts it anyway. */
const DRAIN_TIMEOUT_MS = 600_000;
/** How often the drain asks HAProxy how many requests the instance still has. */
const DRAIN_POLL_MS = 100;
/**
 * Test only: restart each instance with a plain SIGTERM, without draining it first, to show the failures
 * the drain prevents. Never documented; nothing else reads it.
 */
const TEST_ONLY_NO_DRAIN = "STUDIO_SERVE_TEST_ONLY_NO_DRAIN";

/**
 * A rolling reload, its progress on launch's stderr and to `say` (a `studio-serve reload` caller); a trigger
 * while one runs joins it (and hears the rest of its progress) instead of starting another.
 */
export function reload(fleet: Fleet, say?: (line: string) => void): Promise<boolean> {
  if (fleet.reloading !== undefined) {
    if (say !== undefined) fleet.reloading.listeners.add(say);
    return fleet.reloading.done;
  }
  const listeners = new Set<(line: string) => void>(say === undefined ? [] : [say]);
  const tell = (line: string) => {
    fleet.io.err(`studio-serve: ${line}\n`);
    for (const listener of listeners) listener(line);
  };
  const done = rollingReload(fleet, tell)
    .catch((error: unknown) => {
      tell(`reload: stopped: ${messageOf(error)}`);
      return false;
    })
    .finally(() => {
      fleet.reloading = undefined;
    });
  fleet.reloading = { done, listeners };
  return done;
}

/**
 * Restarts the instances one at a time while the others serve. For each: HAProxy drains it (no new request,
 * the open ones finish: vLLM cuts them on SIGTERM, it does not drain), then puts it in maintenance; its
 * process group gets TERM, the grace, KILL; it starts again with the same argv, environment, port and GPU
 * (so vLLM reads the weights again), must serve, gets the runtime adapters back, answers a one-token
 * completion, and only then is it ready in HAProxy again. An instance that does not come back stops the
 * reload; HAProxy keeps sending to the healthy ones.
 */
async function rollingReload(fleet: Fleet, say: (line: string) => void): Promise<boolean> {
  const { instances, io } = fleet;
  const socket = fleet.balancer?.socket;
  if (instances.length < 2 || socket === undefined) {
    say(
      "reload: refused with one instance (requests would fail while it restarts): use --instances 2 or more",
    );
    return false;
  }
  const drain = io.env[TEST_ONLY_NO_DRAIN] !== "1";
  say(`reload: restarting ${instances.length} instances one at a time`);
  for (const instance of instances) {
    const i = instance.index;
    const where = `instance ${i} (port ${instance.plan.built.listen.port}, GPU ${instance.gpu})`;
    if (fleet.stop.signal.aborted) return cancelled(say);
    if (drain) {
      if (!instances.some((other) => other !== instance && other.serving)) {
        say(`reload: ${where}: no other instance is ready to take its requests; stopping the reload`);
        return false;
      }
      instance.serving = false;
      await setServerState(socket, i, "drain");
      say(
        `reload: ${where}: drained in HAProxy; waiting for its ${await openRequests(socket, i)} open requests`,
      );
      const done = await drained(fleet, socket, i);
      // A stop (Ctrl-C) during the wait cancels the reload: nothing is restarted after it.
      if (fleet.stop.signal.aborted) return cancelled(say);
      if (!done) {
        say(`reload: ${where}: requests still open after ${DRAIN_TIMEOUT_MS / 1000} s; restarting anyway`);
      }
      await setServerState(socket, i, "maint");
    }
    instance.restarting = true;
    const before = instance.vllm?.group.pgid;
    await stopInstance(instance, "reload");
    if (fleet.stop.signal.aborted) {
      instance.restarting = false;
      return cancelled(say);
    }
    say(`reload: ${where}: stopped${before === undefined ? "" : ` (pid ${before})`}; starting it again`);
    const started = await startInstance(instance, fleet.stop.signal, fleet.saveState);
    if (fleet.stop.signal.aborted) {
      instance.restarting = false;
      return cancelled(say);
    }
    const cameBack = typeof started === "number";
    const reapplied = cameBack ? await reapplyAdapters(fleet, instance, say) : false;
    instance.restarting = false;
    if (!reapplied) {
      const why = cameBack
        ? "its adapters could not be loaded again"
        : "it did not serve again; its reason is above";
      say(
        `reload: ${where}: did not come back (${why}); HAProxy keeps sending to the healthy instances. Reload stopped.`,
      );
      await instance.vllm?.shutDown();
      return false;
    }
    watchInstance(fleet, instance);
    if (drain) await setServerState(socket, i, "ready");
    instance.serving = true;
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

/** Waits until HAProxy has no open request at instance i, within the bound; false when it passed or on a stop. */
async function drained(fleet: Fleet, socket: string, i: number): Promise<boolean> {
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  while (Date.now() < deadline && !fleet.stop.signal.aborted) {
    if ((await openRequests(socket, i)) === 0) return true;
    await sleep(DRAIN_POLL_MS, fleet.stop.signal);
  }
  return false;
}
