import { defineConfig } from "tsdown";
// A relative import: tsdown's config loader bundles it, where a package import would reach Node as .ts.
import { publishedLibrary } from "../internal/src/build/published-library.ts";

// The bundled OpenAPI documents ship as they are (`openapi/`), outside the bundle.
export default defineConfig(publishedLibrary({ entry: ["src/index.ts"] }));
