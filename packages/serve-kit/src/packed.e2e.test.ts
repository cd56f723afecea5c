import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

// What npm would install: the package packed by pnpm (which rewrites workspace: versions), unpacked into
// an empty project's node_modules, with its workspace dependencies linked in and the bin linked as npm does.

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));
const PACKAGES = dirname(PACKAGE_DIR);

describe("the packed package", { timeout: 120_000 }, () => {
  let project = "";
  let installed = "";

  beforeAll(() => {
    project = mkdtempSync(join(tmpdir(), "serve-kit-packed-"));
    const out = execFileSync("pnpm", ["pack", "--pack-destination", project], {
      cwd: PACKAGE_DIR,
      encoding: "utf8",
    });
    const tarball = out.trim().split("\n").at(-1) ?? "";
    installed = join(project, "node_modules", "@finetune-studio", "serve-kit");
    mkdirSync(installed, { recursive: true });
    execFileSync("tar", ["-xzf", tarball, "-C", installed, "--strip-components=1"]);
    for (const dependency of ["client", "types"]) {
      symlinkSync(join(PACKAGES, dependency), join(project, "node_modules", "@finetune-studio", dependency));
    }
    mkdirSync(join(project, "node_modules", ".bin"));
    symlinkSync(
      join("..", "@finetune-studio", "serve-kit", "dist", "cli", "main.js"),
      join(project, "node_modules", ".bin", "studio-serve"),
    );
  });

  it("declares real versions, ships no tests or sources, and an executable bin with a shebang", () => {
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"));
    for (const version of Object.values<string>(manifest.dependencies))
      expect(version).toMatch(/^\d+\.\d+\.\d+/);
    expect(manifest.bin).toEqual({ "studio-serve": "./dist/cli/main.js" });
    const files = execFileSync("find", [".", "-type", "f"], { cwd: installed, encoding: "utf8" }).split("\n");
    expect(files.filter((file) => /\.test\.|\/src\/|fixtures/.test(file))).toEqual([]);
    expect(files).toEqual(expect.arrayContaining(["./README.md", "./LICENSE", "./dist/index.d.ts"]));
    const bin = join(installed, "dist", "cli", "main.js");
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
  });

  it("imports the builders by the package name", () => {
    const script =
      "import('@finetune-studio/serve-kit').then(m => console.log(m.buildServeCommand({ kind: 'full', model: 'm' }).shell))";
    expect(
      execFileSync(process.execPath, ["--input-type=module", "-e", script], {
        cwd: project,
        encoding: "utf8",
      }),
    ).toBe("vllm serve m --host 127.0.0.1 --port 8000\n");
  });
});
