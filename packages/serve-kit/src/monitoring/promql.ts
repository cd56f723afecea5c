// Small PromQL builders the dashboard and the SLO rules share.

/**
 * `build(first) or build(second) ...`, parenthesised: vLLM renamed several metrics, and a series from the
 * first (current) name wins; the older name fills in for servers that only write it. `or` matches on labels
 * without the metric name (Prometheus's set operators), so apply it where both sides carry the same labels.
 */
export function eitherName(names: readonly string[], build: (name: string) => string): string {
  const parts = names.map(build);
  return parts.length === 1 ? (parts[0] ?? "") : `(${parts.join(" or ")})`;
}

/** A label-matcher list without braces: `job="vllm",instance=~"$instance"`. */
export function matchers(...parts: (string | undefined)[]): string {
  return parts.filter((part) => part !== undefined && part !== "").join(",");
}

/**
 * A regex for an `le` label matching any of `bounds`, in each spelling a bound reaches Prometheus as:
 * Python's float text (vLLM writes `1.0`) and the short one (`1`). `[.]` keeps `1.0` from matching `100`.
 */
export function leRegex(bounds: readonly number[]): string {
  const spellings = bounds.flatMap((bound) => {
    const short = String(bound);
    return Number.isInteger(bound) ? [short, `${short}.0`] : [short];
  });
  return spellings.map((text) => text.replaceAll(".", "[.]")).join("|");
}
