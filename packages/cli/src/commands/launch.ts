import { checkServeFits } from "../plan/fit-check.js";
import { gpuAskedOnce } from "../plan/plan-input.js";
import { AUTOSCALE_FLAGS } from "../shared/autoscale-flags.js";
import { synopsesOf, usageLines } from "../shared/command-args.js";
import { ExitCode } from "../shared/exit-codes.js";
import { describedAs, flagHelp } from "../shared/flags.js";
import { SERVE_HELP } from "../shared/help.js";
import {
  GPUS_FLAG,
  INSTANCES_FLAG,
  MAX_CONNECTIONS_FLAG,
  RUNTIME_LORA_FLAG,
} from "../shared/instance-flags.js";
import type { CliIo } from "../shared/io.js";
import { LAUNCH_TIMEOUT_FLAG, LOG_DIR_FLAG, STOP_TIMEOUT_FLAG } from "../shared/launch-flags.js";
import { ROUTING_FLAG, SESSION_HEADER_FLAG } from "../shared/routing-flags.js";
import { parseServeArgs, SERVE_FLAGS, serveForms } from "../shared/serve-args.js";
import { runFleet } from "../supervise/fleet.js";
import { parseLayout } from "../supervise/layout.js";
import type { CliCommand } from "./command-type.js";

// launch's own flags, each declared with its rule: the durations in shared/launch-flags.ts, the instances in
// shared/instance-flags.ts. Values that must agree with others are checked where they are used, before
// anything starts: the log directory by instance/launch-settings.ts, the instances' layout by supervise/layout.ts.
const WAIT_FLAGS = [LAUNCH_TIMEOUT_FLAG, STOP_TIMEOUT_FLAG];
const LOG_FLAGS = [LOG_DIR_FLAG];
const INSTANCE_FLAGS = [
  INSTANCES_FLAG,
  GPUS_FLAG,
  MAX_CONNECTIONS_FLAG,
  RUNTIME_LORA_FLAG,
  describedAs(
    ROUTING_FLAG,
    "how HAProxy picks the instance: session (the default) sends each value of\nthe session header to one instance, by its hash, with bounded load, so a conversation's next turn finds its prefix in that vLLM's cache;\na request without the header goes to the least busy. prefix: as session,\nand a request without the header is keyed on its first user message\n(HAProxy reads every request body). least-busy: the fewest open requests",
  ),
  describedAs(SESSION_HEADER_FLAG, "the header that names a session"),
  ...AUTOSCALE_FLAGS,
];
export const LAUNCH_FLAGS = [...SERVE_FLAGS, ...WAIT_FLAGS, ...LOG_FLAGS, ...INSTANCE_FLAGS];
const LAUNCH_FORMS = serveForms("launch", LAUNCH_FLAGS);

/**
 * `studio-serve launch`: one vLLM on the port clients call, or (--instances, --gpus) one per GPU behind
 * HAProxy. Both run the same code, `runFleet`: the key and every check, preflight, vLLM in its own process
 * group, the stop signals owned, ready once /health, /v1/models and a one-token smoke completion answer, then
 * serving until vLLM exits or a signal stops it; whatever ends it, every process group is stopped first.
 */
async function runLaunch(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseServeArgs("launch", args, LAUNCH_FLAGS);
  if (parsed === "help") {
    io.out(HELP);
    return ExitCode.Ok;
  }
  const helpFor = `launch ${parsed.kind}`;
  // The fit check and the front door's per-instance limit both read the GPU: nvidia-smi is asked once.
  const planGpu = gpuAskedOnce(parsed, io.env, helpFor);
  // Will it fit: a warning before anything starts (a refusal with --strict) when the model's files are local.
  if (!(await checkServeFits(parsed, io, helpFor, planGpu))) return ExitCode.Failure;
  return await runFleet(parsed, parseLayout(parsed), io, planGpu);
}

const HELP = `studio-serve launch: start vLLM, wait until it serves the model, check it with a one-token
completion, then keep running until vLLM stops; the exit code is vLLM's.

${usageLines(...LAUNCH_FORMS)}

${SERVE_HELP}

Waiting and stopping:
${flagHelp(WAIT_FLAGS)}

Ctrl-C, SIGTERM, SIGHUP and SIGQUIT stop vLLM and its workers alike; a second one kills them at once.
Whenever vLLM's main process ends, launch stops what is left of its process group before it exits.

Logs:
${flagHelp(LOG_FLAGS)}

Several GPUs on one machine:
${flagHelp(INSTANCE_FLAGS)}
  With --instances, SIGHUP (or \`studio-serve reload --port P\`) restarts the instances one at a time
  (each drained in HAProxy first; vLLM reads the weights again) while the others answer: no request
  fails. Ctrl-C, SIGTERM, SIGQUIT or \`studio-serve stop --port P\` stop HAProxy and every instance. If
  launch itself is killed, HAProxy and the instances go on serving; the next launch on the port (or
  \`studio-serve stop\`) finds them, stops them all, and says so.

Any launch, of one or many, can be found by \`studio-serve status --launch P\`, \`stop --port P\` and
\`reload --port P\`. Launch also stops, as on SIGTERM, when its output pipe closes (\`| head\`).

vllm must be on PATH (pip install vllm). Without --api-key-env, a VLLM_API_KEY already in the
environment is used, since vLLM would read it anyway.
`;

export const launch: CliCommand = {
  name: "launch",
  synopsis: synopsesOf(LAUNCH_FORMS, "start vLLM, wait until it answers"),
  help: HELP,
  flags: LAUNCH_FLAGS,
  run: runLaunch,
};
