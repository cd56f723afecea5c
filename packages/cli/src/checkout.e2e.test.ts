import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The root README's way to run the CLI from a checkout: `pnpm -s studio-serve ...` runs the built CLI, and
// prints only what the command prints.

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

describe("studio-serve from a checkout", () => {
  it("pnpm -s studio-serve runs the built CLI from the repository's root", () => {
    const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
      version: string;
    };
    const out = execFileSync("pnpm", ["-s", "studio-serve", "--version"], { cwd: ROOT, encoding: "utf8" });
    expect(out).toBe(`${version}\n`);
  });
});
