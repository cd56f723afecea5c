import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "./registry.js";

// Commands share code through shared/, never through one another: a command borrowing another's parser
// borrowed its help and its messages too ("see studio-serve status --help" from bench).
const dir = new URL("./", import.meta.url);
const commandFiles = readdirSync(dir).filter(
  (name) => name.endsWith(".ts") && !name.endsWith(".test.ts") && name !== "registry.ts",
);

describe("the commands", () => {
  it.each(commandFiles)("%s imports no other command", (name) => {
    const text = readFileSync(new URL(name, dir), "utf8");
    const siblings = [...text.matchAll(/from "\.\/([^"]+)\.js"/g)].map((match) => match[1]);
    expect(siblings.filter((sibling) => sibling !== "command-type")).toEqual([]);
  });
});

describe("each command's help", () => {
  it.each(COMMANDS.map((command) => [command.name, command] as const))(
    "%s --help lists every flag its parser takes",
    (_name, command) => {
      const listed = (name: string) =>
        new RegExp(`--(\\[no-\\])?${name}\\b`).test(command.help) || name.startsWith("no-");
      expect(command.flags.map((flag) => flag.name).filter((name) => !listed(name))).toEqual([]);
    },
  );
});
