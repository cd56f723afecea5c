import type { Snippet } from "./markdown.js";
import { studioServe } from "./serving-cli.js";

// The autoscaling guide's (content/autoscaling.md) table of defaults, read from the real CLI's help at build
// time: the defaults a reader is told are the ones `launch` and `stack values` use, or the build fails.

/** Each setting, and what stands for it on Kubernetes; none: `stack values` takes it (its help's default). */
const SETTINGS: readonly { flag: string; kubernetes?: string }[] = [
  { flag: "scale-on" },
  { flag: "scale-down-after" },
  { flag: "idle", kubernetes: "(KEDA removes the pod)" },
  { flag: "scale-rule", kubernetes: "(the HPA's, which `hpa` plays)" },
];

/** The default a command's `--help` states for `--flag`: the `(default ...)` closing its help lines. */
export function helpDefault(help: string, flag: string): string {
  const start = help.search(new RegExp(`^  --${flag}\\b`, "m"));
  if (start < 0) throw new Error(`--${flag} is not in the help`);
  const next = help.slice(start + 2).search(/^ {2}\S/m);
  const entry = next < 0 ? help.slice(start) : help.slice(start, start + 2 + next);
  const found = /\(default ([^)]*?)(?: with a range)?\)/.exec(entry.replace(/\s+/g, " "));
  if (found === null) throw new Error(`--${flag}'s help states no default:\n${entry}`);
  return found[1] as string;
}

export function autoscalingSnippets(): Record<string, Snippet> {
  const cli = studioServe();
  const launch = cli.run(["launch", "--help"]);
  const stack = cli.run(["stack", "values", "--help"]);
  const rows = SETTINGS.map(({ flag, kubernetes }) => {
    const there = kubernetes ?? `\`${helpDefault(stack, flag)}\``;
    return `| \`--${flag}\` | \`${helpDefault(launch, flag)}\` | ${there} |`;
  });
  const table = [
    "| setting | default on one machine (`launch`) | default on Kubernetes (`stack values`) |",
    "| --- | --- | --- |",
    ...rows,
  ].join("\n");
  return { "autoscale-defaults": { lang: "markdown", code: table } };
}
