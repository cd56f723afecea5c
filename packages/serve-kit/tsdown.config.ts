import { fileURLToPath } from "node:url";
import { defineConfig, type Rolldown } from "tsdown";
// A relative import: tsdown's config loader bundles it, where a package import would reach Node as .ts.
import { publishedLibrary } from "../internal/src/build/published-library.ts";

const errorsModule = fileURLToPath(new URL("src/errors.ts", import.meta.url));

/**
 * The internal entry imports `ServeConfigError` from the public entry instead of bundling a second copy, so
 * the CLI's `instanceof ServeConfigError` holds for what either entry throws.
 */
const publicErrorClass: Rolldown.Plugin = {
  name: "serve-kit-public-error-class",
  resolveId: {
    filter: { id: /\/errors\.js$/ },
    async handler(source, importer, options) {
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      return resolved?.id === errorsModule ? { id: "@finetune-studio/serve-kit", external: true } : null;
    },
  },
};

// Pure functions that run anywhere: the shared setup's neutral platform. Two builds, one file per entry: a
// shared build would put the code both entries reach in a chunk no entry names.
export default defineConfig([
  publishedLibrary({ entry: { index: "src/index.ts" } }),
  publishedLibrary({ entry: { internal: "src/internal-entry.ts" }, plugins: [publicErrorClass] }),
]);
