import { refuse } from "../internal/validate.js";

/**
 * The signals an autoscaler reads from vLLM's own `/metrics`, with the threshold past which the fleet grows:
 * - `queue`: requests waiting per serving instance (`vllm:num_requests_waiting`, the same name in V0 and V1);
 * - `kv`: the KV cache's mean usage, 0 to 1 (V1's `vllm:kv_cache_usage_perc`, V0's `vllm:gpu_cache_usage_perc`).
 */
export interface ScaleSignals {
  queue?: number;
  kv?: number;
}

export const SCALE_SIGNAL_NAMES = ["queue", "kv"] as const;

/**
 * The thresholds when none are given. queue 5: production-stack's KEDA default scales past 5 waiting
 * requests, and llm-d's variant autoscaler calls an instance saturated at 5 or more waiting; vLLM queues a
 * request only when its batch (max_num_seqs) or KV cache is full, so a few waiting is the first sign of a
 * full instance. kv 0.8: llm-d's saturation point; AIBrix's 0.5 target would add an instance while half the
 * cache is still free, and vLLM batches best with its cache well used (it preempts near 1.0, not before).
 */
export const DEFAULT_SCALE_SIGNALS: Readonly<Required<ScaleSignals>> = { queue: 5, kv: 0.8 };

/** The signals in words, as `--scale-on` takes them: `queue=5,kv=0.8`. */
export function scaleSignalsText(signals: ScaleSignals): string {
  return SCALE_SIGNAL_NAMES.filter((name) => signals[name] !== undefined)
    .map((name) => `${name}=${signals[name]}`)
    .join(",");
}

const NUMBER = /^(\d{1,9}(\.\d{1,9})?|\.\d{1,9})$/;

/** `queue=N[,kv=F]` (either, or both, in any order). */
export function parseScaleSignals(text: string, field: string): ScaleSignals {
  const signals: Record<string, number> = {};
  for (const part of text.split(",")) {
    const [name = "", value, ...rest] = part.trim().split("=");
    if (!(SCALE_SIGNAL_NAMES as readonly string[]).includes(name)) {
      refuse(
        field,
        `must name signals queue=N or kv=F, such as queue=5,kv=0.8 (unknown ${JSON.stringify(name)})`,
        text,
      );
    }
    if (value === undefined || rest.length > 0 || !NUMBER.test(value.trim())) {
      refuse(field, `${name} must be given a number that is not negative, as ${name}=N`, text);
    }
    if (signals[name] !== undefined) refuse(field, `names ${name} twice`, text);
    signals[name] = Number(value);
  }
  return checkScaleSignals(signals, field, text);
}

/** Signals from plain JavaScript, checked as the words are: queue above 0, kv above 0 and at most 1. */
export function checkScaleSignals(value: unknown, field: string, given: unknown = value): ScaleSignals {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    refuse(field, "must be { queue?, kv? }", given);
  }
  const signals = value as Record<string, unknown>;
  const names = Object.keys(signals);
  const unknown = names.find((name) => !(SCALE_SIGNAL_NAMES as readonly string[]).includes(name));
  if (unknown !== undefined)
    refuse(field, `knows queue and kv only (unknown ${JSON.stringify(unknown)})`, given);
  if (names.length === 0) refuse(field, "must name at least one signal: queue=N or kv=F", given);
  const { queue, kv } = signals;
  if (queue !== undefined && !(typeof queue === "number" && Number.isFinite(queue) && queue > 0)) {
    refuse(field, "queue must be above 0 (waiting requests per instance)", given);
  }
  if (kv !== undefined && !(typeof kv === "number" && kv > 0 && kv <= 1)) {
    refuse(field, "kv must be above 0 and at most 1 (the KV cache's share in use)", given);
  }
  return {
    ...(queue === undefined ? {} : { queue: queue as number }),
    ...(kv === undefined ? {} : { kv: kv as number }),
  };
}
