import { defineConfig } from "tsdown";
// A relative import: tsdown's config loader bundles it, where a package import would reach Node as .ts.
import { publishedLibrary } from "../internal/src/build/published-library.ts";

// The client runs in browsers, Deno, Bun and edge runtimes: the shared setup's neutral platform.
export default defineConfig(publishedLibrary({ entry: ["src/index.ts"] }));
