import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Snippet } from "./markdown.js";
import { repoRoot } from "./paths.js";

/**
 * The serving guide's "Will it fit?" section: the real `studio-serve plan`, run at build time on the plan's
 * own test data (real models' config.json and safetensors index, served by a stand-in hub:
 * plan-hub-stand-in.mjs). Each verdict that names flags is run again with them, and the build fails unless
 * that run fits: the guide's advice is checked, not just printed.
 */

const LLAMA = "meta-llama/Llama-3.1-8B-Instruct";
const MIXTRAL = "mistralai/Mixtral-8x7B-v0.1";
const repos = { [LLAMA]: "llama-3.1-8b-instruct", [MIXTRAL]: "mixtral-8x7b-v0.1" };
/** A local copy, for the fit check of command and launch (which plans local directories). */
const local = { "Llama-3.1-8B-Instruct": "llama-3.1-8b-instruct" };
const fixturesDir = `${repoRoot}packages/serve-kit/src/plan/fixtures`;

interface Run {
  args: string[];
  code: number;
  stdout: string;
  stderr: string;
}

function runAll(cliEntry: string, runs: string[][]): Run[] {
  const script = fileURLToPath(new URL("./plan-hub-stand-in.mjs", import.meta.url));
  const cases = JSON.stringify({ repos, local, runs });
  const child = spawnSync(process.execPath, [script, cliEntry, fixturesDir, cases], {
    encoding: "utf8",
    timeout: 120_000,
  });
  if (child.status !== 0) throw new Error(`the plan example failed: ${child.stderr || child.error?.message}`);
  return JSON.parse(child.stdout) as Run[];
}

/** The flags a verdict says to pass ("pass: --flag value ..."). */
function passFlags(run: Run): string[] {
  const line = run.stdout.split("\n").find((text) => text.startsWith("pass: "));
  if (!line || run.code === 0)
    throw new Error(`studio-serve ${run.args.join(" ")}: expected a verdict with flags`);
  return line.slice("pass: ".length).split(" ");
}

function expectFits(run: Run): Run {
  if (run.code !== 0 || !/^verdict: fits/m.test(run.stdout))
    throw new Error(`studio-serve ${run.args.join(" ")} does not fit:\n${run.stdout}${run.stderr}`);
  return run;
}

const shown = (run: Run, text: string) => `$ studio-serve ${run.args.join(" ")}\n${text.trimEnd()}`;
const verdictLines = (run: Run) =>
  run.stdout
    .split("\n")
    .filter((line) => line.startsWith("verdict: ") || line.startsWith("pass: "))
    .join("\n");

export function planSnippets(cliEntry: string): Record<string, Snippet> {
  const onL4 = ["plan", LLAMA, "--gpu", "L4"];
  const mixtral = ["plan", MIXTRAL, "--gpu", "H100", "--gpu-count", "2"];
  const [l4, mixtralOnOne, a100] = runAll(cliEntry, [
    onL4,
    mixtral,
    ["plan", LLAMA, "--gpu", "A100-80GB"],
  ]) as [Run, Run, Run];
  // The largest power of two under the length the plan names: what a reader would pick.
  const named = Number(passFlags(l4)[1]);
  const roundLength = String(2 ** Math.floor(Math.log2(named)));
  // An fp8 KV cache holds each token in half the bytes: twice that length.
  const [l4Shorter, fp8, mixtralSplit, strict] = runAll(cliEntry, [
    [...onL4, "--max-model-len", roundLength],
    [...onL4, "--max-model-len", String(2 * Number(roundLength)), "--kv-cache-dtype", "fp8"],
    [...mixtral, ...passFlags(mixtralOnOne)],
    ["command", "full", `./${Object.keys(local)[0]}`, "--gpu", "L4", "--strict"],
  ]) as [Run, Run, Run, Run];
  for (const run of [l4Shorter, mixtralSplit, a100, fp8]) expectFits(run);
  if (strict.code !== 1 || !strict.stderr.includes(passFlags(l4).join(" ")))
    throw new Error(`command --strict did not refuse with the plan's flags:\n${strict.stderr}`);
  return {
    "plan-table": { lang: "text", code: shown(l4, l4.stdout) },
    "plan-verdicts": {
      lang: "text",
      code: [l4Shorter, fp8, a100, mixtralOnOne, mixtralSplit]
        .map((run) => shown(run, verdictLines(run)))
        .join("\n\n"),
    },
    "plan-strict": { lang: "text", code: shown(strict, strict.stderr) },
  };
}
