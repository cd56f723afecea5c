// Packs every published package the way `pnpm publish` would (workspace: ranges replaced by versions),
// then installs the tarballs with plain npm into an empty project, as a user would.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { publishedPackages, tarballName } from "./published.js";

declare module "vitest" {
  export interface ProvidedContext {
    packDir: string;
    consumerDir: string;
  }
}

export default function setup(project: TestProject) {
  const workDir = mkdtempSync(join(tmpdir(), "finetune-studio-pack-"));
  const packDir = join(workDir, "tarballs");
  const consumerDir = join(workDir, "consumer");
  const packages = publishedPackages();
  for (const pkg of packages) {
    execFileSync("pnpm", ["pack", "--pack-destination", packDir], { cwd: pkg.dir, stdio: "pipe" });
  }
  execFileSync("mkdir", ["-p", consumerDir]);
  writeFileSync(
    join(consumerDir, "package.json"),
    `${JSON.stringify({ name: "consumer", version: "1.0.0", private: true }, null, 2)}\n`,
  );
  const tarballs = packages.map((pkg) => join(packDir, tarballName(pkg)));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...tarballs], {
    cwd: consumerDir,
    stdio: "pipe",
  });
  project.provide("packDir", packDir);
  project.provide("consumerDir", consumerDir);
  return () => rmSync(workDir, { recursive: true, force: true });
}
