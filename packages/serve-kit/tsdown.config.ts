import { defineConfig } from "tsdown";
// A relative import: tsdown's config loader bundles it, where a package import would reach Node as .ts.
import { publishedLibrary } from "../internal/src/build/published-library.ts";

export default defineConfig([
  // The library: pure functions that run anywhere.
  publishedLibrary({ entry: { index: "src/index.ts" } }),
  // The `studio-serve` bin, one self-contained file (it repeats the builders it uses rather than share a
  // chunk with the library), until it moves to @finetune-studio/cli.
  publishedLibrary({ entry: { "cli/main": "src/cli/main.ts" }, platform: "node", dts: false }),
]);
