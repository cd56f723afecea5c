// Each entry ships as one bundled ESM file and one bundled declaration file: nothing else loads on import,
// and nothing ships that no entry names (a stray chunk, a source map, a test).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { publishedPackages } from "./published.js";

/** Every path `exports` and `bin` name, without the leading `./`. */
function entryFiles(manifest: {
  exports?: Record<string, unknown>;
  bin?: string | Record<string, string>;
}): string[] {
  const targets: string[] = [];
  const collect = (target: unknown): void => {
    if (typeof target === "string") targets.push(target);
    else if (target !== null && typeof target === "object") Object.values(target).forEach(collect);
  };
  collect(manifest.exports);
  collect(manifest.bin);
  return [...new Set(targets.map((target) => target.replace(/^\.\//, "")))].sort();
}

function shippedCode(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .filter((file) => !file.startsWith("node_modules/"))
    .filter((file) => /\.(?:[cm]?js|d\.[cm]?ts|map)$/.test(file))
    .sort();
}

describe.each(publishedPackages())("$name, installed", (pkg) => {
  it("ships exactly the code files its entries name", () => {
    const dir = join(inject("consumerDir"), "node_modules", pkg.name);
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    const named = entryFiles(manifest).filter((file) => /\.(?:[cm]?js|d\.[cm]?ts)$/.test(file));
    expect(named.length).toBeGreaterThan(0);
    expect(shippedCode(dir)).toEqual(named);
  });
});
