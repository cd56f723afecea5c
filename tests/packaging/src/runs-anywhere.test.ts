// Each package's library entry runs in browsers, Deno, Bun and edge runtimes too: the bundle may import
// its dependencies, never a Node built-in (the bundler leaves one as an import rather than fail).
import { readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { publishedPackages } from "./published.js";

const builtins = new Set(builtinModules);

/** The module specifiers a bundled ESM file imports, statically or dynamically. */
function importedSpecifiers(code: string): string[] {
  const found = code.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g);
  return [...found].map((match) => match[1] ?? "");
}

function isNodeBuiltin(specifier: string): boolean {
  return specifier.startsWith("node:") || builtins.has(specifier.split("/")[0] ?? specifier);
}

describe("importedSpecifiers", () => {
  it("finds static, bare and dynamic imports", () => {
    const code = `import a from "node:fs";\nimport "os";\nexport { b } from 'x/y';\nawait import("z");`;
    expect(importedSpecifiers(code)).toEqual(["node:fs", "os", "x/y", "z"]);
  });
});

const libraries = publishedPackages().filter((pkg) => {
  const manifest = JSON.parse(readFileSync(join(pkg.dir, "package.json"), "utf8"));
  return manifest.exports?.["."] !== undefined;
});

describe.each(libraries)("$name, library entry", (pkg) => {
  it("imports no Node built-in", () => {
    const dir = join(inject("consumerDir"), "node_modules", pkg.name);
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    const target = manifest.exports["."];
    const entry: string = typeof target === "string" ? target : (target.default ?? target.import);
    const code = readFileSync(join(dir, entry), "utf8");
    expect(importedSpecifiers(code).filter(isNodeBuiltin)).toEqual([]);
  });
});
