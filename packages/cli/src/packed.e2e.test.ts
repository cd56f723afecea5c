import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// What npm would install: the package packed by pnpm (which rewrites workspace: versions), unpacked into
// an empty project's node_modules, with its workspace dependencies linked in and the bin linked as npm does.

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));
const PACKAGES = dirname(PACKAGE_DIR);

describe("the packed package", { timeout: 120_000 }, () => {
  let project = "";
  let installed = "";

  beforeAll(() => {
    project = mkdtempSync(join(tmpdir(), "cli-packed-"));
    const out = execFileSync("pnpm", ["pack", "--pack-destination", project], {
      cwd: PACKAGE_DIR,
      encoding: "utf8",
    });
    const tarball = out.trim().split("\n").at(-1) ?? "";
    installed = join(project, "node_modules", "@finetune-studio", "cli");
    mkdirSync(installed, { recursive: true });
    execFileSync("tar", ["-xzf", tarball, "-C", installed, "--strip-components=1"]);
    for (const dependency of ["client", "serve-kit", "types"]) {
      symlinkSync(join(PACKAGES, dependency), join(project, "node_modules", "@finetune-studio", dependency));
    }
    // Dependencies from the registry, as npm would install them: the ones this workspace installed.
    for (const dependency of ["yaml"]) {
      symlinkSync(join(PACKAGE_DIR, "node_modules", dependency), join(project, "node_modules", dependency));
    }
    mkdirSync(join(project, "node_modules", ".bin"));
    symlinkSync(
      join("..", "@finetune-studio", "cli", "dist", "main.js"),
      join(project, "node_modules", ".bin", "studio-serve"),
    );
  });
  afterAll(() => rmSync(project, { recursive: true, force: true }));

  it("declares real versions, ships no tests or sources, and an executable bin with a shebang", () => {
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"));
    for (const version of Object.values<string>(manifest.dependencies))
      expect(version).toMatch(/^[\^~]?\d+\.\d+\.\d+/);
    expect(manifest.bin).toEqual({ "studio-serve": "./dist/main.js" });
    const files = execFileSync("find", [".", "-type", "f"], { cwd: installed, encoding: "utf8" }).split("\n");
    expect(files.filter((file) => /\.test\.|\/src\/|fixtures|\/test\//.test(file))).toEqual([]);
    expect(files).toEqual(expect.arrayContaining(["./README.md", "./LICENSE", "./dist/main.js"]));
    const bin = join(installed, "dist", "main.js");
    expect(readFileSync(bin, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
    expect(statSync(bin).mode & 0o111).not.toBe(0);
  });

  it("runs studio-serve through node_modules/.bin", () => {
    const bin = join(project, "node_modules", ".bin", "studio-serve");
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
