// The flags that make a launch of many: how many instances, on which GPUs, and the front door's connection
// limit. Declared once, with their rules; supervise/layout.ts reads them and checks how they agree.
import { ServeConfigError } from "@finetune-studio/serve-kit";
import {
  MAX_FRONT_CONNECTIONS,
  MIN_FRONT_CONNECTIONS,
  parseScalingRange,
  type ScalingRange,
} from "@finetune-studio/serve-kit/internal";
import { countFlag, ruleFlag, switchFlag } from "./flags.js";
import { refuse, wholeNumber } from "./values.js";

/** More instances than one machine holds GPUs for is a typo. */
export const MAX_INSTANCES = 16;
/** GPUs one launch spreads its instances over, tensor parallelism included. */
const MAX_GPUS = 64;
const GPU_ID = /^(?:\d{1,3}|GPU-[0-9a-fA-F-]{8,64}|MIG-[0-9a-fA-F/-]{8,80})$/;

/** serve-kit's words (parseScalingRange and kin) refused as a flag's rule: `--flag: rule (given ...)`. */
export function asFlagRule<T>(read: () => T, flag: string, text: string): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof ServeConfigError) refuse(flag, error.rule, text);
    throw error;
  }
}

/** `--instances N`, or `MIN..MAX` for an elastic fleet (autoscale-flags.ts); N is MIN..MIN. */
export const INSTANCES_FLAG = ruleFlag<ScalingRange>(
  "instances",
  {
    valueName: "N|MIN..MAX",
    help: "run N vLLM instances, one per GPU (CUDA_VISIBLE_DEVICES 0..N-1), on\n127.0.0.1 ports P+1..P+N, with HAProxy (which must be on PATH) on --port P\nin front: it picks each request's instance (--routing), streams flow, and\nrequests go straight from HAProxy to vLLM (never through launch). With\n--tensor-parallel-size T, each instance gets T GPUs of its own (0,1 then\n2,3 ...): N x T GPUs in all, checked with nvidia-smi before anything starts. MIN..MAX: an elastic fleet\nof MIN to MAX instances on those GPUs (see --scale-on)",
  },
  (text, flag) => {
    // A plain count keeps its own words, as before ranges: "a whole number from 1 to 16".
    if (!text.includes("..")) {
      const count = wholeNumber(text, flag, 1, MAX_INSTANCES);
      return { min: count, max: count };
    }
    const range = asFlagRule(() => parseScalingRange(text, flag), flag, text);
    if (range.max > MAX_INSTANCES) refuse(flag, `must end at ${MAX_INSTANCES} or less`, text);
    return range;
  },
);

/** `--gpus 0,1,...`: different GPU indexes or UUIDs (nvidia-smi -L's), in the order given. */
export const GPUS_FLAG = ruleFlag(
  "gpus",
  {
    valueName: "0,1,...",
    help: "the same, on these GPUs (indexes or UUIDs), one instance each (T each, in\nthe order listed, with --tensor-parallel-size T)",
  },
  (text, flag) => {
    const gpus = text.split(",");
    const bad = gpus.find((gpu) => !GPU_ID.test(gpu));
    if (bad !== undefined || gpus.length > MAX_GPUS || new Set(gpus).size !== gpus.length) {
      refuse(flag, `must list 1 to ${MAX_GPUS} different GPU indexes or UUIDs separated by commas`, text);
    }
    return gpus;
  },
);

export const MAX_CONNECTIONS_FLAG = countFlag("max-connections", {
  min: 1,
  max: MAX_FRONT_CONNECTIONS,
  help: "connections HAProxy holds at once, waiting or served: each instance gets\nat most --max-num-seqs and HAProxy queues the rest",
  shows: `4 x N x --max-num-seqs, at least\n${MIN_FRONT_CONNECTIONS}, within the open-file limit`,
});

export const RUNTIME_LORA_FLAG = switchFlag(
  "runtime-lora",
  "let adapters be loaded and unloaded while vLLM runs (launch lora only)\n(VLLM_ALLOW_RUNTIME_LORA_UPDATING=True): `studio-serve adapter` does it on\nevery instance. Anyone who can call vLLM can then load adapters from paths\non this machine: trusted networks only; refused on a non-loopback --host\nwithout --api-key-env",
);
