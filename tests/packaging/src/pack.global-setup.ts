// Packs every published package the way `pnpm publish` would (workspace: ranges replaced by versions),
// then installs the tarballs with plain npm into an empty project, as a user would: once for this package's
// tests and the runtime tests together (shared-install.ts). Each run gets a project folder of its own, whose
// node_modules is that install, so what a test writes there (a tsconfig, a script) stays its own.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { publishedPackages, tarballName } from "./published.js";
import { sharedInstall } from "./shared-install.js";

declare module "vitest" {
  export interface ProvidedContext {
    packDir: string;
    consumerDir: string;
  }
}

export default async function setup(project: TestProject) {
  const workDir = mkdtempSync(join(tmpdir(), "finetune-studio-pack-"));
  try {
    const packDir = join(workDir, "tarballs");
    const packages = publishedPackages();
    for (const pkg of packages) {
      execFileSync("pnpm", ["pack", "--pack-destination", packDir], { cwd: pkg.dir, stdio: "pipe" });
    }
    const installed = await sharedInstall(packages.map((pkg) => join(packDir, tarballName(pkg))));
    const consumerDir = join(workDir, "consumer");
    mkdirSync(consumerDir);
    copyFileSync(join(installed, "package.json"), join(consumerDir, "package.json"));
    symlinkSync(join(installed, "node_modules"), join(consumerDir, "node_modules"));
    project.provide("packDir", packDir);
    project.provide("consumerDir", consumerDir);
  } catch (error) {
    rmSync(workDir, { recursive: true, force: true });
    throw error;
  }
  return () => rmSync(workDir, { recursive: true, force: true });
}
