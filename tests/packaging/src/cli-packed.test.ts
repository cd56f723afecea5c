// The CLI as npm installs it from its packed tarball (the setup's shared install): what the tarball holds,
// and studio-serve run through node_modules/.bin with nothing of this workspace on PATH.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { publishedPackages, tarballName } from "./published.js";

const consumerDir = inject("consumerDir");
const installed = join(consumerDir, "node_modules", "@finetune-studio", "cli");
const cli = publishedPackages().find((pkg) => pkg.name === "@finetune-studio/cli");
if (!cli) throw new Error("@finetune-studio/cli is not among the published packages");
const tarball = join(inject("packDir"), tarballName(cli));

describe("the packed CLI", () => {
  it("declares real versions, ships no tests or sources, and an executable bin with a shebang", () => {
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"));
    for (const version of Object.values<string>(manifest.dependencies))
      expect(version).toMatch(/^[\^~]?\d+\.\d+\.\d+/);
    expect(manifest.bin).toEqual({ "studio-serve": "./dist/main.js" });
    const files = execFileSync("find", [".", "-type", "f"], { cwd: installed, encoding: "utf8" }).split("\n");
    expect(files.filter((file) => /\.test\.|\/src\/|fixtures|\/test\//.test(file))).toEqual([]);
    expect(files).toEqual(expect.arrayContaining(["./README.md", "./LICENSE", "./dist/main.js"]));
    expect(readFileSync(join(installed, "dist", "main.js"), "utf8").startsWith("#!/usr/bin/env node\n")).toBe(
      true,
    );
    // Executable in the tarball itself: npm would make the installed bin executable whatever the tarball says.
    const listing = execFileSync("tar", ["-tvzf", tarball, "package/dist/main.js"], { encoding: "utf8" });
    expect(listing).toMatch(/^-rwx/);
  });

  it("runs studio-serve through node_modules/.bin", () => {
    const bin = join(consumerDir, "node_modules", ".bin", "studio-serve");
    const env = { ...process.env, PATH: `${dirname(process.execPath)}:/usr/bin:/bin` };
    expect(execFileSync(bin, ["--help"], { env, encoding: "utf8" })).toMatch(/^studio-serve: serve a model/);
    expect(execFileSync(bin, ["command", "full", "acme/m"], { env, encoding: "utf8" })).toBe(
      "vllm serve acme/m --host 127.0.0.1 --port 8000\n",
    );
    expect(execFileSync(bin, ["stack", "values", "full", "acme/m"], { env, encoding: "utf8" })).toContain(
      "modelURL: acme/m\n",
    );
  });
});
