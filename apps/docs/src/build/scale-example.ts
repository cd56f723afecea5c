import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Snippet } from "./markdown.js";

/**
 * The serving guide's "Scale" section: a sweep of `studio-serve bench`, the real CLI run at build time
 * against the sandbox's streaming chat mock (scale-example.mjs), its table and its chart.
 */
export function scaleSnippets(cliEntry: string): Record<string, Snippet> {
  const script = fileURLToPath(new URL("./scale-example.mjs", import.meta.url));
  const run = spawnSync(process.execPath, [script, cliEntry], { encoding: "utf8", timeout: 180_000 });
  if (run.status !== 0) throw new Error(`the scale example failed: ${run.stderr || run.error?.message}`);
  const { command, output, svg } = JSON.parse(run.stdout) as { command: string; output: string; svg: string };
  return {
    "scale-sweep": { lang: "text", code: `$ ${command}\n${output}`.trimEnd() },
    "scale-chart": { lang: "markdown", code: `<figure class="chart">\n${svg.trim()}\n</figure>` },
  };
}
