import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { nearestWord } from "./shared/did-you-mean.js";
import { runCapture } from "./test/run-cli.js";

// What a person types wrong, and what the CLI answers: the nearest declared word, the flag's own rule,
// the flag a library field is set by; never Node's parser wording or a code identifier.

const PLAN_MODEL = fileURLToPath(
  new URL("../../serve-kit/src/plan/fixtures/llama-3.1-8b-instruct", import.meta.url),
);
const NOWHERE = "http://127.0.0.1:9";

const cases: [string, string[], string][] = [
  [
    "a flag typed short of its name",
    ["plan", PLAN_MODEL, "--tensor-parallel", "2"],
    'unknown option "--tensor-parallel"; did you mean --tensor-parallel-size?',
  ],
  [
    "a flag misspelt",
    ["bench", NOWHERE, "--concurency", "4"],
    'unknown option "--concurency"; did you mean --concurrency?',
  ],
  ["a command misspelt", ["lauch", "full", "m"], 'unknown command "lauch"; did you mean launch?'],
  [
    "a negative rate",
    ["bench", NOWHERE, "--rate", "-1"],
    '--rate: must be a number above 0, or inf (given "-1")',
  ],
  [
    "a negative GPU memory",
    ["plan", PLAN_MODEL, "--gpu-memory", "-1"],
    '--gpu-memory: must be a size such as 80GiB or 24GB (given "-1")',
  ],
  [
    "a flag where a value belongs",
    ["bench", NOWHERE, "--model", "--json"],
    '--model: needs M after it, and "--json" is a flag (a value that starts with a dash is written --model=VALUE)',
  ],
  ["a value flag at the end", ["command", "full", "m", "--port"], "--port: needs P after it"],
  [
    "a switch given a value",
    ["status", "--json=yes"],
    '--json: is a switch and takes no value (given "yes")',
  ],
  [
    "lora without an adapter",
    ["command", "lora", "base"],
    "--adapter: must list at least one adapter: add --adapter name=path (repeat it for more), or serve full <model>",
  ],
  [
    "a rule that names another option",
    ["command", "lora", "b", "--adapter", "a=/a", "--max-loras", "4", "--max-cpu-loras", "2"],
    "--max-cpu-loras: must be at least --max-loras (4) (given 2)",
  ],
];

describe("words a person types", () => {
  it.each(cases)("%s: one line that says what to type, exit 2", async (_, args, want) => {
    const { code, stdout, stderr } = await runCapture(args);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain(`studio-serve: ${want}`);
    expect(stderr).not.toMatch(/\\u000a|Option '|ERR_PARSE_ARGS|\b[a-z]+[A-Z][a-zA-Z]*\b \(/);
    expect(stderr.trimEnd().split("\n")).toHaveLength(1);
  });

  it("suggests nothing for a word far from every declared one", async () => {
    const { stderr } = await runCapture(["bench", NOWHERE, "--zzzzzz"]);
    expect(stderr).toContain('unknown option "--zzzzzz" (see');
    expect(nearestWord("xyz", ["launch", "status"])).toBeUndefined();
    expect(nearestWord("stauts", ["launch", "status"])).toBe("status");
  });
});
