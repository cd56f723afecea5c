import { defineConfig } from "tsdown";
// A relative import: tsdown's config loader bundles it, where a package import would reach Node as .ts.
import { publishedLibrary } from "../internal/src/build/published-library.ts";

// The `studio-serve` bin as one file for Node. Real dependencies (serve-kit, the client) stay imports; the
// private @finetune-studio/internal is inlined.
export default defineConfig(
  publishedLibrary({ entry: { main: "src/main.ts" }, platform: "node", dts: false }),
);
