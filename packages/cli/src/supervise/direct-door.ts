import { exitCodeOf } from "@finetune-studio/internal";
import { clientSnippet } from "../instance/client-snippet.js";
import type { LaunchSettings } from "../instance/launch-settings.js";
import { formatDuration } from "../instance/report.js";
import type { CliIo } from "../shared/io.js";
import type { Door } from "./door.js";
import { soleInstance } from "./instance.js";

/**
 * A launch of one: its vLLM listens on the port clients call, with no balancer in between, in the
 * environment's GPUs. It cannot drain (a reload is refused) and has no room for another instance; its exit
 * code is its vLLM's, as a shell would report it.
 */
export function directDoor(plan: LaunchSettings, extraEnv: NodeJS.ProcessEnv, io: CliIo): Door {
  const none = () => Promise.resolve(undefined);
  return {
    describe: () => "vLLM",
    slots: [{ index: 0, gpu: undefined, port: plan.built.listen.port }],
    slotFor: () => undefined,
    instanceFor: (_slot, hooks) => soleInstance(plan, extraEnv, io, hooks),
    check: none,
    checkPorts: none,
    announceStart: () => {},
    open: none,
    announceReady(seconds) {
      const { model, baseURL } = plan.built.client;
      // One write: whoever reads up to "ready:" (a script, a test) has the snippet with it.
      io.out(
        `ready: ${baseURL} serves "${model}" (smoke completion answered in ${formatDuration(seconds * 1000)})\n` +
          clientSnippet(plan.built.client, plan.key?.name),
      );
      io.err("studio-serve: press Ctrl-C to stop vLLM\n");
    },
    balancer: undefined,
    pgid: undefined,
    metricsPort: undefined,
    close: () => Promise.resolve(),
    kill: () => {},
    exitCodeAfterStop: (code, [exit]) => (exit === undefined ? code : exitCodeOf(exit)),
    exitCodeWhenNoneLeft: (exit) => exitCodeOf(exit),
  };
}
