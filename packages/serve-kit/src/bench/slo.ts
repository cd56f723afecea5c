import { refuse } from "../internal/validate.js";
import type { BenchSlo } from "./metrics.js";

const KEYS = { ttft: "ttftMs", tpot: "tpotMs", e2el: "e2elMs" } as const;
const UNIT_MS = { ms: 1, s: 1000 } as const;
const RULE =
  "must be metric=time pairs separated by commas, metrics ttft, tpot and e2el, times such as 500ms or 2s (e.g. ttft=500ms,tpot=50ms)";

/** Reads `ttft=500ms,tpot=50ms,e2el=10s` (vLLM's `--goodput ttft:500 tpot:50`, with units) into an SLO. */
export function parseSlo(text: string, field = "slo"): BenchSlo {
  const slo: Record<string, number> = {};
  for (const part of text.split(",")) {
    const match = /^\s*(ttft|tpot|e2el)\s*=\s*(\d+(?:\.\d+)?)\s*(ms|s)\s*$/.exec(part);
    if (match === null) refuse(field, RULE, text);
    const [, metric, amount, unit] = match as unknown as [
      string,
      keyof typeof KEYS,
      string,
      keyof typeof UNIT_MS,
    ];
    const key = KEYS[metric];
    if (key in slo) refuse(field, `names ${metric} twice`, text);
    const ms = Number(amount) * UNIT_MS[unit];
    if (!(ms > 0)) refuse(field, `${metric} must be above 0`, text);
    slo[key] = ms;
  }
  return slo as BenchSlo;
}
