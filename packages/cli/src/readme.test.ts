import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "./commands/registry.js";
import { exitCodeHelp } from "./shared/exit-codes.js";
import { mainHelp } from "./shared/help.js";

// The README's command list is the main help's: a command added to the registry and missing from the README
// (or the other way round) fails here.

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");

describe("the CLI README", () => {
  it("lists every command as `studio-serve --help` does", () => {
    const listed = /## Commands\n\n```text\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
    const usage = mainHelp(COMMANDS).split("Usage:\n")[1]?.split("\n\n")[0] ?? "";
    expect(listed.trimEnd()).toBe(
      usage
        .split("\n")
        .map((line) => line.slice(2))
        .join("\n"),
    );
  });

  it("gives the exit codes the main help gives, as one list", () => {
    expect(readme).toContain(`\`\`\`text\n${exitCodeHelp()}\n\`\`\``);
    expect(mainHelp(COMMANDS)).toContain(exitCodeHelp());
  });
});
