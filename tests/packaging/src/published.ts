import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

export const repoRoot = resolve(import.meta.dirname, "../../..");

export interface PublishedPackage {
  name: string;
  dir: string;
  version: string;
}

/** Every workspace package that is not private: what `changeset publish` would put on npm. */
export function publishedPackages(): PublishedPackage[] {
  const packagesDir = join(repoRoot, "packages");
  return readdirSync(packagesDir)
    .map((entry) => join(packagesDir, entry))
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) }))
    .filter(({ manifest }) => !manifest.private)
    .map(({ dir, manifest }) => ({ name: manifest.name, dir, version: manifest.version }));
}

/** The file name `pnpm pack` gives a package's tarball. */
export function tarballName({ name, version }: PublishedPackage): string {
  return `${name.replace(/^@/, "").replace("/", "-")}-${version}.tgz`;
}

/** The names of every private workspace package: code that must never be needed by a published one. */
export function privatePackageNames(): string[] {
  return ["packages", "apps", "tests"]
    .map((group) => join(repoRoot, group))
    .flatMap((groupDir) => readdirSync(groupDir).map((entry) => join(groupDir, entry, "package.json")))
    .concat(join(repoRoot, "bench", "package.json"))
    .filter((manifestPath) => existsSync(manifestPath))
    .map((manifestPath) => JSON.parse(readFileSync(manifestPath, "utf8")))
    .filter((manifest) => manifest.private === true)
    .map((manifest) => manifest.name);
}
