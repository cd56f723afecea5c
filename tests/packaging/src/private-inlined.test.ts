// Private workspace code (@finetune-studio/internal, say) reaches users only inlined by the bundler: an
// installed package that still imported it, or listed it as a dependency, would break on install.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { privatePackageNames, publishedPackages } from "./published.js";

const privateNames = privatePackageNames();

/** A module specifier naming the package or a subpath of it, in any quotes. */
function specifierOf(name: string): RegExp {
  return new RegExp(`["'\`]${name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}(?:/[^"'\`]*)?["'\`]`);
}

/** Every file below a directory, as paths relative to it. */
function filesBelow(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1));
}

describe("private workspace packages", () => {
  it("include @finetune-studio/internal, so the checks below have something to look for", () => {
    expect(privateNames).toContain("@finetune-studio/internal");
  });
});

describe.each(publishedPackages())("$name, installed", (pkg) => {
  const installedDir = () => join(inject("consumerDir"), "node_modules", pkg.name);

  it("lists no private workspace package among what npm installs for it", () => {
    const manifest = JSON.parse(readFileSync(join(installedDir(), "package.json"), "utf8"));
    const needed = ["dependencies", "peerDependencies", "optionalDependencies"].flatMap((field) =>
      Object.keys(manifest[field] ?? {}),
    );
    expect(needed.filter((name) => privateNames.includes(name))).toEqual([]);
  });

  it("imports no private workspace package from any shipped file", () => {
    const dir = installedDir();
    const found = filesBelow(dir)
      .filter((file) => /\.(?:[cm]?js|d\.[cm]?ts)$/.test(file))
      .flatMap((file) => {
        const text = readFileSync(join(dir, file), "utf8");
        return privateNames.filter((name) => specifierOf(name).test(text)).map((name) => `${file} → ${name}`);
      });
    expect(found).toEqual([]);
  });
});
