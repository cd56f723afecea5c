// The flags of an elastic launch (`--instances MIN..MAX`): the signals it scales on, how long the load stays
// low before an instance goes, what an idle instance does, and which rule decides. The words are
// serve-kit's, the same as `stack values --replicas MIN..MAX` takes; supervise/layout.ts refuses them
// without a range.
import { DEFAULT_SCALE_SIGNALS } from "@finetune-studio/serve-kit";
import {
  DEFAULT_SCALE_DOWN_AFTER_SECONDS,
  durationText,
  HPA_DEFAULTS,
  parseDuration,
  parseScaleSignals,
  type ScaleSignals,
} from "@finetune-studio/serve-kit/internal";
import { ruleFlag } from "./flags.js";
import { asFlagRule } from "./instance-flags.js";
import { refuse } from "./values.js";

/** A day: past it the fleet never shrinks in practice, and a typo is likelier. */
const MAX_SCALE_DOWN_AFTER_SECONDS = 86_400;

export type IdleAction = "stop" | "sleep";
const IDLE_ACTIONS: readonly IdleAction[] = ["stop", "sleep"];

export const SCALE_ON_FLAG = ruleFlag<ScaleSignals>(
  "scale-on",
  {
    valueName: "queue=N[,kv=F]",
    help: "with --instances MIN..MAX: add an instance when the requests waiting per\nserving instance stay past N, or the mean KV-cache usage past F (0 to 1)",
    shows: `queue=${DEFAULT_SCALE_SIGNALS.queue},kv=${DEFAULT_SCALE_SIGNALS.kv}`,
  },
  (text, flag) => asFlagRule(() => parseScaleSignals(text, flag), flag, text),
);

export const SCALE_DOWN_AFTER_FLAG = ruleFlag<number>(
  "scale-down-after",
  {
    valueName: "DURATION",
    help: "with --instances MIN..MAX: drain instances once the fleet would have\nfitted on fewer for this long: 15s, 5m, 1h",
    shows: durationText(DEFAULT_SCALE_DOWN_AFTER_SECONDS),
  },
  (text, flag) => asFlagRule(() => parseDuration(text, flag, 1, MAX_SCALE_DOWN_AFTER_SECONDS), flag, text),
);

export const IDLE_FLAG = ruleFlag<IdleAction>(
  "idle",
  {
    valueName: "stop|sleep",
    help: "with --instances MIN..MAX: what a drained instance does. stop frees its\nGPUs; sleep keeps its process with the weights in host memory (vLLM's sleep\nmode) and wakes it in seconds when load returns",
    shows: "stop",
  },
  (text, flag) => {
    if (!(IDLE_ACTIONS as readonly string[]).includes(text)) {
      refuse(flag, `must be one of ${IDLE_ACTIONS.join(", ")}`, text);
    }
    return text as IdleAction;
  },
);

/** The autoscaler's rule: ours (supervise/window-rule.ts), or the Kubernetes HPA's as KEDA drives it. */
export type ScaleRuleName = "window" | "hpa";
export const SCALE_RULES: readonly ScaleRuleName[] = ["window", "hpa"];

export const SCALE_RULE_FLAG = ruleFlag<ScaleRuleName>(
  "scale-rule",
  {
    valueName: "window|hpa",
    help: `with --instances MIN..MAX: the rule that sizes the fleet. window, ours, steps\nonce the load held for a few reads 2 s apart; hpa plays the Kubernetes\nHPA as production-stack's KEDA drives it: a sync every ${HPA_DEFAULTS.syncMs / 1000} s on the total\nwaiting, --scale-down-after as its stabilization window, queue=${DEFAULT_SCALE_SIGNALS.queue} alone\nunless --scale-on names more`,
    shows: "window",
  },
  (text, flag) => {
    if (!(SCALE_RULES as readonly string[]).includes(text)) {
      refuse(flag, `must be one of ${SCALE_RULES.join(", ")}`, text);
    }
    return text as ScaleRuleName;
  },
);

export const AUTOSCALE_FLAGS = [SCALE_ON_FLAG, SCALE_DOWN_AFTER_FLAG, IDLE_FLAG, SCALE_RULE_FLAG];
