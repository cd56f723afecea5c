// The size budget: what the whole public entry adds to a browser app. esbuild bundles the built package as
// an app's bundler would (browser platform, ESM, minified), openapi-fetch included, and the output is
// gzipped. The budgets sit about 5% above the size measured when they were set (bench/RESULTS.md has the
// comparison with openapi-fetch and openai): growing past them should be a decision, so raise them in the
// same commit as the code that needs it, and say why.
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

/** Measured at 8,496 bytes minified + gzipped (24,032 minified) on 2026-11-22. */
const BUDGET_GZIPPED_BYTES = 8_900;
const BUDGET_MINIFIED_BYTES = 25_200;

// The built package, as published: turbo builds it before the tests run.
const entry = new URL("../dist/index.js", import.meta.url).pathname;

/** The package a bundled file comes from: the name after its last node_modules/, else this one. */
function packageOf(input: string): string {
  const inDependency = input.split("node_modules/").at(-1);
  if (inDependency === undefined || inDependency === input) return "@finetune-studio/client";
  const [scopeOrName, name] = inDependency.split("/");
  return scopeOrName?.startsWith("@") ? `${scopeOrName}/${name}` : (scopeOrName ?? input);
}

describe("size budget", () => {
  it("bundles the public entry for browsers within budget", async () => {
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      minify: true,
      platform: "browser",
      format: "esm",
      target: "es2022",
      write: false,
      metafile: true,
      logLevel: "silent",
    });
    const code = result.outputFiles[0]?.contents ?? new Uint8Array();
    const sizes = { minified: code.byteLength, gzipped: gzipSync(code, { level: 9 }).byteLength };

    // Nothing but the client and openapi-fetch: a new runtime dependency would show here first.
    const packages = new Set(Object.keys(result.metafile.inputs).map(packageOf));
    expect([...packages].sort()).toEqual(["@finetune-studio/client", "openapi-fetch"]);

    expect(sizes.gzipped, `minified + gzipped bytes of ${entry}`).toBeLessThanOrEqual(BUDGET_GZIPPED_BYTES);
    expect(sizes.minified, `minified bytes of ${entry}`).toBeLessThanOrEqual(BUDGET_MINIFIED_BYTES);
  });
});
