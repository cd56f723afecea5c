import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

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
