import { isLoopbackHost } from "@finetune-studio/internal";
import { readLaunchSettings } from "../instance/launch-settings.js";
import type { GpuSource } from "../plan/plan-input.js";
import { type CliIo, UsageError } from "../shared/io.js";
import type { ParsedServeArgs } from "../shared/serve-args.js";
import { directDoor } from "./direct-door.js";
import type { Door } from "./door.js";
import { elasticStart } from "./elastic.js";
import { haproxyDoor } from "./haproxy-door.js";
import { runtimeDirOf } from "./runtime-dir.js";
import { Supervisor } from "./supervisor.js";
import type { FleetLayout } from "./types.js";

export { frontDoorMetricsPort } from "./haproxy-door.js";

/**
 * `launch`, with one instance or many. The key and every check come first, in one place, before anything
 * starts. Without --instances or --gpus, one vLLM serves on the port clients call, with no balancer in
 * between (direct-door.ts). With them, N instances on 127.0.0.1 and ports P+1..P+N, one per GPU, each its own
 * process group, and HAProxy on the port clients know, in front of them (haproxy-door.ts): requests go
 * straight from HAProxy to vLLM, launch is never in their path, and if launch is killed they go on being
 * served. Either way one Supervisor runs it (supervisor.ts): SIGHUP or `studio-serve reload` restarts a
 * fleet's instances one at a time, each drained in HAProxy first; Ctrl-C, SIGTERM, SIGQUIT (and SIGHUP for
 * one instance) or `studio-serve stop` stop everything, again to force; whatever ends the run, every process
 * group it started is stopped before launch exits.
 */
export async function runFleet(
  parsed: ParsedServeArgs,
  layout: FleetLayout,
  io: CliIo,
  planGpu: GpuSource,
): Promise<number> {
  const plan = readLaunchSettings(parsed, io);
  const { host, port } = plan.built.listen;
  const helpFor = `launch ${parsed.kind}`;
  const apiKey = plan.key === undefined ? undefined : io.env[plan.key.name];
  if (layout.runtimeLora && apiKey === undefined && !isLoopbackHost(host)) {
    throw new UsageError(
      `--runtime-lora: lets callers load adapters from paths; on ${host} (not loopback) it needs an API key (--api-key-env)`,
      helpFor,
    );
  }
  const elastic = await elasticStart(parsed, layout, io, planGpu);
  const extraEnv = {
    ...(layout.runtimeLora ? { VLLM_ALLOW_RUNTIME_LORA_UPDATING: "True" } : {}),
    ...elastic.extraEnv,
  };
  const dir = runtimeDirOf(port, io.env);
  // A launch of one is a launch like another: its directory, state and control socket let `status
  // --launch`, `stop`, `reload` and `adapter` find it, and a launch after a kill stop what it left.
  const door: Door =
    layout.gpus.length === 0
      ? directDoor(plan, extraEnv, io)
      : await haproxyDoor({ ...elastic, plan, extraEnv, io, planGpu, helpFor, dir });
  if (layout.runtimeLora) {
    io.err(
      "studio-serve: --runtime-lora: vLLM lets anyone who can call it load adapters from paths on this machine; use it on trusted networks only\n",
    );
  }
  return await new Supervisor(plan, io, dir, apiKey, door, elastic.scaler).run();
}
