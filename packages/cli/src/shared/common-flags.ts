// The flags several commands take, declared once. A command takes one by listing it; its help line, rule
// and default come from here.
import { DEFAULT_SLO_OBJECTIVE } from "@finetune-studio/serve-kit";
import { checkListenAddress, DEFAULT_JOB_NAME } from "@finetune-studio/serve-kit/internal";
import { DEFAULT_KEY_VARIABLE } from "./api-key.js";
import type { Needs } from "./command-args.js";
import { ruleFlag, switchFlag, textFlag } from "./flags.js";
import { envName, launchPort, wholeNumber } from "./values.js";

/** Where `launch` listens when no --host or --port is given: serve-kit's defaults, read from serve-kit. */
export const DEFAULT_LISTEN: { host: string; port: number } = checkListenAddress();
export const DEFAULT_LAUNCH_PORT = DEFAULT_LISTEN.port;

/** `--port P` of the commands that talk to a running launch (reload, stop, adapter). */
export const LAUNCH_PORT_FLAG = ruleFlag(
  "port",
  {
    valueName: "P",
    help: "the port the launch serves on: its HAProxy, or its one vLLM",
    fallback: DEFAULT_LAUNCH_PORT,
  },
  launchPort,
);

/** `--launch P`: the instances of the launch serving on port P of this machine (status, bench). */
export const LAUNCH_FLAG = ruleFlag(
  "launch",
  { valueName: "P", help: "the launch serving on port P of this machine" },
  launchPort,
);

/** `--api-key-env NAME`: where the server's key is, never the key itself. */
export const API_KEY_ENV_FLAG = ruleFlag(
  "api-key-env",
  {
    valueName: "NAME",
    help: "the key vLLM was started with, from the environment variable NAME",
    shows: DEFAULT_KEY_VARIABLE,
  },
  envName,
);

/** `--json`: figures for scripts instead of the table. */
export const JSON_FLAG = switchFlag("json", "JSON for scripts instead of the table");

/** `--out DIR`: write the files into DIR instead of printing them. */
export const OUT_FLAG = textFlag("out", { valueName: "DIR", help: "write the files into DIR" });

// The GPU a plan is for: `plan`, and the fit check `command` and `launch` run first (plan/plan-input.ts reads
// them). Without either, nvidia-smi is asked.
export const GPU_FLAG = textFlag("gpu", {
  valueName: "NAME",
  help: "the GPU to plan for: H100, H100-NVL, H200, A100-80GB, A100-40GB, L40S, L4, A10G, T4, ...\n(default: nvidia-smi's)",
});
export const GPU_MEMORY_FLAG = textFlag("gpu-memory", {
  valueName: "SIZE",
  field: "gpu.memoryBytes",
  help: "or a GPU not in that list, by its memory: 80GiB, 24GB",
});
export const GPU_FLAGS = [GPU_FLAG, GPU_MEMORY_FLAG];
/** `plan --gpu-count N`: how many GPUs the plan may shard over. */
export const GPU_COUNT_FLAG = ruleFlag(
  "gpu-count",
  {
    valueName: "N",
    field: "gpu.count",
    help: "GPUs available (default: nvidia-smi's count, else the tensor-parallel size)",
  },
  (text, flag) => wholeNumber(text, flag, 1, 1024, "must be a whole number of GPUs from 1 to 1024"),
);
/** `plan --enable-lora`: plan a LoRA serve without naming its adapters. */
export const ENABLE_LORA_FLAG = switchFlag(
  "enable-lora",
  "plan a LoRA serve (also on with a LoRA flag: --max-loras, --max-lora-rank, ...)",
  undefined,
  "enableLora",
);

/** `--job NAME`: the scrape job of the vLLM instances, which the Prometheus config names and the dashboard reads. */
export const JOB_FLAG = textFlag("job", {
  valueName: "NAME",
  help: "the scrape job of the vLLM instances",
  shows: DEFAULT_JOB_NAME,
  field: "jobName",
});

// Service-level targets, in one syntax for every command (serve-kit's parseSlo reads them): bench's goodput,
// and the attainment rules, dashboard panels and live shares of prometheus, grafana and status.
export const SLO_FLAG = textFlag("slo", {
  valueName: "ttft=500ms,tpot=50ms,e2el=10s",
  help: "a request is good when it meets each target",
  field: "slo",
});
/** `--objective F`: the share of requests that must meet the SLO (serve-kit checks it). */
export const OBJECTIVE_FLAG = textFlag("objective", {
  valueName: "F",
  help: "with --slo: the share of requests that must meet it",
  shows: DEFAULT_SLO_OBJECTIVE,
  field: "objective",
});

/** `--objective` is the share of the requests that meet --slo's targets: without them it means nothing. */
export const OBJECTIVE_NEEDS_SLO: Needs = {
  flag: OBJECTIVE_FLAG,
  needs: SLO_FLAG,
  verb: "goes with",
  why: "the targets it is the share of",
};
