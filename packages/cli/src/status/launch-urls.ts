import { join } from "node:path";
import { escapeForTerminal, isThisMachine } from "@finetune-studio/internal";
import type { CliIo } from "../shared/io.js";
import { callControl } from "../supervise/control.js";
import {
  describeParts,
  type LaunchState,
  readLaunchState,
  SCRAPE_TARGETS_FILE,
} from "../supervise/launch-state.js";
import { controlSocketOf, findLaunch, runtimeDirOf } from "../supervise/runtime-dir.js";

/** The instances of the launch serving on a port: their root URLs, and what to say of a killed launch. */
export interface LaunchUrls {
  urls: string[];
  /** Set when the launch was killed and its instances serve on: what still runs, and how to stop it. */
  killed: string | undefined;
  /** Where the front door (HAProxy) serves its own Prometheus metrics, `127.0.0.1:port`; none for a launch of one. */
  frontDoorMetrics: string | undefined;
  /** An elastic launch's file of scrape targets (file_sd), rewritten as its instances come and go. */
  targetsFile: string | undefined;
  /** Each instance's state in its life cycle and an elastic fleet's last decision, as the state file says. */
  lifeCycle: string | undefined;
}

/**
 * The root URLs of the instances the launch on `port` (of this user) manages: asked on its control socket,
 * or read from the state a killed one left (its instances may still serve). Undefined when none runs there.
 */
export async function launchUrls(port: number, io: CliIo): Promise<LaunchUrls | undefined> {
  const dir = runtimeDirOf(port, io.env);
  const lines: string[] = [];
  const outcome = await callControl(controlSocketOf(dir), { op: "instances" }, (line) => {
    lines.push(line);
  });
  if (outcome === true) {
    // The running launch's state file records the port; it is written before the instances start.
    const state = readLaunchState(dir);
    return {
      urls: lines,
      killed: undefined,
      frontDoorMetrics: metricsOf(state),
      lifeCycle: lifeCycleOf(state),
      targetsFile: state?.autoscaler === undefined ? undefined : join(dir, SCRAPE_TARGETS_FILE),
    };
  }
  const found = await findLaunch(dir);
  if (found.kind !== "left") return undefined;
  return {
    urls: found.state.instances.map((instance) => `http://127.0.0.1:${instance.port}`),
    frontDoorMetrics: metricsOf(found.state),
    lifeCycle: lifeCycleOf(found.state),
    // A killed launch no longer rewrites it: its instances stay as they are, listed.
    targetsFile: undefined,
    killed: `the launch on port ${port} (pid ${found.state.launch.pid}) was killed; ${describeParts(found.parts)} still run. \`studio-serve stop --port ${port}\` stops them; a new launch on the port does too.`,
  };
}

/**
 * "instances on ports 8001 serving, 8002 asleep; autoscaler 1..3: hold (why), 12:00:01" (with the HPA's
 * rule "autoscaler 1..3, hpa rule: ..."): what the table cannot say (an instance asleep still answers
 * /health). Undefined for older state files without states.
 */
function lifeCycleOf(state: LaunchState | undefined): string | undefined {
  if (state === undefined || state.instances.every((instance) => instance.state === undefined))
    return undefined;
  const instances = state.instances.map((instance) => `${instance.port} ${instance.state ?? "unknown"}`);
  const scaler = state.autoscaler;
  const last =
    scaler === undefined
      ? ""
      : `; autoscaler ${scaler.range}${scaler.rule === "hpa" ? ", hpa rule" : ""}: ${scaler.action} (${escapeForTerminal(scaler.reason)}), ${new Date(scaler.atMs).toTimeString().slice(0, 8)}`;
  return `instances on ports ${instances.join(", ")}${last}`;
}

function metricsOf(state: LaunchState | undefined): string | undefined {
  return state?.metricsPort === undefined ? undefined : `127.0.0.1:${state.metricsPort}`;
}

/**
 * `url` as status should read it: a launch's front door on this machine (HAProxy on the port a `launch
 * --instances N` serves) answers each read from another instance, so successive /metrics reads would mix
 * their counters; it stands for the launch's instances, each read on its own port, as `--launch P` does.
 * Any other URL (a launch of one's own port included: its one vLLM answers there) is kept.
 */
export async function behindFrontDoor(url: string, io: CliIo): Promise<string[]> {
  const { hostname, port, protocol } = new URL(url);
  if (protocol !== "http:" || port === "" || !isThisMachine(hostname)) return [url];
  const launch = await launchUrls(Number(port), io);
  if (launch === undefined) return [url];
  const own = launch.urls.length === 1 && new URL(launch.urls[0] ?? url).port === port;
  if (own) return [url];
  io.err(
    `studio-serve: ${url} is the front door (HAProxy) of the launch on port ${port}: showing its ${launch.urls.length} instances, as --launch ${port} does\n`,
  );
  if (launch.killed !== undefined) io.err(`studio-serve: ${launch.killed}\n`);
  return launch.urls;
}
