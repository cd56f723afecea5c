import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { publishedPackages } from "../../packaging/src/published.js";

it("depends on every published package, so that turbo builds each one before the matrix packs it", () => {
  const manifest = JSON.parse(readFileSync(join(import.meta.dirname, "..", "package.json"), "utf8"));
  const missing = publishedPackages()
    .map((pkg) => pkg.name)
    .filter((name) => manifest.devDependencies?.[name] !== "workspace:*");
  expect(missing, "add them to tests/runtimes/package.json as workspace:* devDependencies").toEqual([]);
});
