import { messageOf } from "../shared/messages.js";
import { reapplyAdapters } from "./adapters.js";
import { DRAIN_TIMEOUT_MS } from "./drain.js";
import type { Instance } from "./instance.js";
import type { Supervisor } from "./supervisor.js";

/**
 * Test only: restart each instance with a plain SIGTERM, without draining it first, to show the failures
 * the drain prevents. Never documented; nothing else reads it.
 */
const TEST_ONLY_NO_DRAIN = "STUDIO_SERVE_TEST_ONLY_NO_DRAIN";

type Say = (line: string) => void;

/**
 * A rolling reload, its progress on launch's stderr and to `say` (a `studio-serve reload` caller); a trigger
 * while one runs joins it (and hears the rest of its progress) instead of starting another.
 */
export function reload(fleet: Supervisor, say?: Say): Promise<boolean> {
  if (fleet.reloading !== undefined) {
    if (say !== undefined) fleet.reloading.listeners.add(say);
    return fleet.reloading.done;
  }
  const listeners = new Set<Say>(say === undefined ? [] : [say]);
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
 * Restarts the instances one at a time while the others serve (restartOne). An instance that does not come
 * back stops the reload; HAProxy keeps sending to the healthy ones.
 */
async function rollingReload(fleet: Supervisor, say: Say): Promise<boolean> {
  const { instances } = fleet;
  if (instances.length < 2 || fleet.balancer === undefined) {
    say(
      "reload: refused with one instance (requests would fail while it restarts): use --instances 2 or more",
    );
    return false;
  }
  if (!fleet.ready) {
    say("reload: the launch is still starting its instances; try again once it is ready");
    return false;
  }
  say(`reload: restarting ${instances.length} instances one at a time`);
  for (const instance of [...instances]) {
    if (!(await restartOne(fleet, instance, say))) return false;
  }
  say("reload: done, every instance restarted");
  return true;
}

/**
 * One instance: HAProxy drains it (no new request, the open ones finish), then puts it in maintenance; its
 * process group gets TERM, the grace, KILL; it starts again with the same argv, environment, port and GPU
 * (so vLLM reads the weights again), must serve, gets the runtime adapters back, answers a one-token
 * completion, and only then is it ready in HAProxy again. A stop (Ctrl-C) at any step cancels the reload:
 * nothing is restarted after it.
 */
async function restartOne(fleet: Supervisor, instance: Instance, say: Say): Promise<boolean> {
  const where = `instance ${instance.index} (port ${instance.port}, GPU ${instance.gpu})`;
  const sayHere = (line: string) => say(`reload: ${where}: ${line}`);
  if (fleet.stopped.aborted) return cancelled(say);
  if (fleet.io.env[TEST_ONLY_NO_DRAIN] !== "1" && instance.state === "serving") {
    const drained = await fleet.drain(instance, sayHere);
    if (drained === "alone") {
      sayHere("no other instance is ready to take its requests; stopping the reload");
      return false;
    }
    if (drained === "stopping") return cancelled(say);
    if (drained === "timed-out") {
      sayHere(`requests still open after ${DRAIN_TIMEOUT_MS / 1000} s; restarting anyway`);
    }
  }
  const before = instance.pgid;
  await instance.stop("reload");
  if (fleet.stopped.aborted) return cancelled(say);
  sayHere(`stopped${before === undefined ? "" : ` (pid ${before})`}; starting it again`);
  const started = await instance.start(fleet.stopped);
  if (fleet.stopped.aborted) return cancelled(say);
  const cameBack = typeof started === "number";
  if (!cameBack || !(await reapplyAdapters(fleet, instance, (line) => say(`reload: ${line}`)))) {
    const why = cameBack
      ? "its adapters could not be loaded again"
      : "it did not serve again; its reason is above";
    sayHere(`did not come back (${why}); HAProxy keeps sending to the healthy instances. Reload stopped.`);
    await instance.stop("reload: did not come back");
    return false;
  }
  await fleet.admit(instance);
  const pid = instance.pgid;
  instance.record({ event: "restarted", pid, pgid: pid, reason: "reload" });
  sayHere(`serves again (pid ${pid})`);
  return true;
}

function cancelled(say: Say): false {
  say("reload: cancelled, launch is stopping");
  return false;
}
