import { execFileSync } from "node:child_process";
import { buildDockerCommand, buildServeCommand, type ServeOptions } from "@finetune-studio/serve-kit";
import { describe, expect, it } from "vitest";
import { multilineCommand, splitWords } from "../src/build/shell-lines.js";

/** The words /bin/sh makes of `text`: the ground truth the layout must keep. */
function shellWords(text: string): string[] {
  const out = execFileSync("/bin/sh", ["-c", `set -- ${text}\nprintf '%s\\0' "$@"`], { encoding: "utf8" });
  return out.split("\0").slice(0, -1);
}

const awkward: [string, ServeOptions][] = [
  ["a plain full model", { kind: "full", model: "your-org/support-assistant", servedModelName: "support" }],
  ["spaces, quotes and $ in a path", { kind: "full", model: `/models/it's a "model" $HOME \\ end` }],
  [
    "adapters whose paths hold = and , (passed as JSON)",
    {
      kind: "lora",
      baseModel: "/base model",
      adapters: [
        { name: "a", path: "/adapters/x=y,z" },
        { name: "b", path: "/adapters/b" },
      ],
      maxLoraRank: 64,
    },
  ],
];

describe("multilineCommand", () => {
  it.each(awkward)("%s: the laid-out text gives /bin/sh exactly the builder's argv", (_name, options) => {
    const command = buildServeCommand(options);
    const text = multilineCommand(command, { width: 0 });
    expect(text.split("\n").length).toBeGreaterThan(1);
    expect(shellWords(text)).toEqual(command.argv);
  });

  it("keeps a short command on one line", () => {
    const command = { shell: "vllm serve m", argv: ["vllm", "serve", "m"] };
    expect(multilineCommand(command)).toBe("vllm serve m");
  });

  it("starts a line at each option, and where asked", () => {
    const command = buildDockerCommand(
      { kind: "full", model: "org/m" },
      { image: "vllm/vllm-openai:v0.11.0" },
    );
    const lines = multilineCommand(command, { breakBefore: ["vllm/vllm-openai:v0.11.0"] }).split(" \\\n  ");
    expect(lines[0]).toBe("docker run");
    expect(lines).toContain("vllm/vllm-openai:v0.11.0 org/m");
    expect(lines.every((line, i) => i === 0 || /^(-|vllm\/)/.test(line))).toBe(true);
  });

  it("refuses shell text that does not match argv", () => {
    expect(() => multilineCommand({ shell: "vllm serve 'a b'", argv: ["vllm", "serve", "a", "b"] })).toThrow(
      /does not parse back/,
    );
  });
});

describe("splitWords", () => {
  it.each([
    ["plain words", "a b  c", ["a", "b", "c"]],
    ["single quotes", "'a b' c", ["a b", "c"]],
    ["the '\\'' idiom", "'it'\\''s'", ["it's"]],
    ["double quotes with escapes", '"a \\"b\\" \\$c"', ['a "b" $c']],
    ["a backslash outside quotes", "a\\ b", ["a b"]],
  ])("%s", (_name, shell, want) => {
    expect(splitWords(shell).map((word) => word.value)).toEqual(want);
    expect(shellWords(shell)).toEqual(want);
  });
});
