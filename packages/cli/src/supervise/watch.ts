import { exitCodeOf } from "@finetune-studio/internal";
import { describeExit, reportLastLines } from "../instance/report.js";
import { setServerState } from "./haproxy-runtime.js";
import { crashedEvent, type Instance } from "./instance.js";
import type { Fleet } from "./types.js";

/**
 * An instance that exits on its own once it served. Alone, it ends the launch with its exit code. In a fleet,
 * HAProxy stops sending it requests at once (its health check would in a few seconds) and the others serve
 * its share; with none left, launch stops.
 */
export function watchInstance(fleet: Fleet, instance: Instance): void {
  const vllm = instance.vllm;
  if (vllm === undefined) return;
  void vllm.exited.then(async (exit) => {
    if (instance.restarting || fleet.stop.signal.aborted || instance.vllm !== vllm) return;
    const { io } = fleet;
    instance.serving = false;
    const code = exitCodeOf(exit);
    if (fleet.balancer === undefined) {
      // A launch of one: vLLM's exit is launch's.
      fleet.exitCode = code;
      if (code === 0) {
        io.err("studio-serve: vLLM exited (exit code 0)\n");
        instance.prepared?.events.write({ event: "stopped", reason: "vLLM exited", exitCode: 0 });
      } else {
        io.err(`studio-serve: vLLM exited (${describeExit(exit)}).\n`);
        reportLastLines(vllm.recent.lines(), io);
        instance.prepared?.events.write(crashedEvent(vllm, code, exit.signal));
      }
      instance.recorded = true;
      fleet.stop.abort();
      return;
    }
    io.err(
      `studio-serve: ${instance.label}exited (${describeExit(exit)}); the others serve its share. \`studio-serve reload\` starts it again.\n`,
    );
    instance.prepared?.events.write(crashedEvent(vllm, code, exit.signal));
    instance.recorded = true;
    if (!fleet.instances.some((other) => other.serving)) {
      io.err("studio-serve: no vLLM instance is left; stopping\n");
      fleet.stop.abort();
      return;
    }
    await setServerState(fleet.balancer.socket, instance.index, "maint").catch(() => {});
  });
}
