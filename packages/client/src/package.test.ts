// What the package promises about itself: no Node-only module in the shipped source (it runs in
// browsers, Deno, Bun and edge runtimes), and a manifest that publishes ESM with declarations.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const root = new URL("..", import.meta.url).pathname;

function shippedSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "test" ? [] : shippedSources(path);
    return /\.ts$/.test(entry.name) && !/\.test(-d)?\.ts$/.test(entry.name) ? [path] : [];
  });
}

describe("package", () => {
  it("imports no Node-only module outside tests", () => {
    const offenders = shippedSources(join(root, "src")).filter((file) =>
      /from\s+["']node:|require\(|import\(["']node:|\bprocess\.|\bBuffer\b/.test(readFileSync(file, "utf8")),
    );
    expect(offenders.map((file) => relative(root, file))).toEqual([]);
  });

  it("publishes ESM with declarations and no side effects", () => {
    const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    expect(manifest).toMatchObject({
      type: "module",
      sideEffects: false,
      exports: { ".": { types: "./dist/index.d.ts", default: "./dist/index.js" } },
      types: "./dist/index.d.ts",
      files: ["dist", "THIRD_PARTY_LICENSES.md"],
    });
    // Both for the declarations' types only: the runtime code is inlined (tsdown.config.ts says why).
    expect(Object.keys(manifest.dependencies).sort()).toEqual(["@finetune-studio/types", "openapi-fetch"]);
  });

  it("ships one file that imports nothing, so a cold import resolves no other package", () => {
    // Built by turbo before the tests run.
    const built = readFileSync(join(root, "dist/index.js"), "utf8");
    expect(built).not.toMatch(/^\s*import\b|\bimport\s*\(|^\s*export\s[^;]*\sfrom\s/m);
    expect(built).toContain("function createClient(");
  });

  it("ships its file minified and in ASCII, the text a cold import must scan kept short", () => {
    // tsdown.config.ts says why: V8's scan of the text is most of what an import costs.
    const built = readFileSync(join(root, "dist/index.js"), "utf8");
    expect(built).not.toMatch(/[^\0-\x7f]/);
    expect(built).not.toContain("/**");
    expect(built.split("\n").length).toBeLessThan(10);
  });

  it.each(["openapi-fetch"])(
    "ships the license of %s, whose code the file inlines, for the version built",
    (name) => {
      // The packages the bundle holds: size-budget.test.ts holds the list to the build's real inputs.
      const dir = join(root, "node_modules", name);
      const { version } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      const notices = readFileSync(join(root, "THIRD_PARTY_LICENSES.md"), "utf8");
      expect(notices).toContain(`## ${name} ${version}`);
      expect(notices).toContain(readFileSync(join(dir, "LICENSE"), "utf8").trim());
    },
  );
});
