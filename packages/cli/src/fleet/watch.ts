import { describeExit } from "../launch/report.js";
import { setServerState } from "./haproxy-runtime.js";
import type { Instance } from "./instance.js";
import type { Fleet } from "./types.js";

/**
 * An instance that exits on its own: HAProxy stops sending it requests at once (its health check would in
 * a few seconds), the others serve its share; with none left, launch stops.
 */
export function watchInstance(fleet: Fleet, instance: Instance): void {
  const vllm = instance.vllm;
  if (vllm === undefined) return;
  void vllm.exited.then(async (exit) => {
    if (instance.restarting || fleet.stop.signal.aborted || instance.vllm !== vllm) return;
    const { io } = fleet;
    instance.serving = false;
    const port = instance.plan.built.listen.port;
    io.err(
      `studio-serve: instance ${instance.index} (port ${port}) exited (${describeExit(exit)}); the others serve its share. \`studio-serve reload\` starts it again.\n`,
    );
    instance.prepared?.events.write({
      event: "crashed",
      exitCode: exit.code ?? 1,
      signal: exit.signal,
      lastLines: vllm.recent.lines().slice(-15),
    });
    if (!fleet.instances.some((other) => other.serving)) {
      io.err("studio-serve: no vLLM instance is left; stopping\n");
      fleet.stop.abort();
      return;
    }
    if (fleet.balancer !== undefined) {
      await setServerState(fleet.balancer.socket, instance.index, "maint").catch(() => {});
    }
  });
}
