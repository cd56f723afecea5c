import { defineConfig } from "tsdown";
// A relative import: tsdown's config loader bundles it, where a package import would reach Node as .ts.
import { publishedLibrary } from "../internal/src/build/published-library.ts";

// The runtime code the client needs (openapi-fetch and the contract's generated limits) is
// inlined into its one file: each package a cold `import` resolves costs Node about as much as parsing the
// whole client, and a serverless start or a CLI pays it on every run. The declarations still import the
// types of openapi-fetch and @finetune-studio/types, so those two stay dependencies.
const inlined = ["openapi-fetch", "@finetune-studio/types"];
const fromRegistry = ["openapi-fetch"];

// The client runs in browsers, Deno, Bun and edge runtimes: the shared setup's neutral platform.
export default defineConfig(
  publishedLibrary({
    entry: ["src/index.ts"],
    deps: {
      // Importers named *.d.ts are the declaration pass: there the packages stay imports.
      alwaysBundle: (id, importer) => inlined.includes(id) && !importer?.endsWith(".d.ts"),
      onlyBundle: fromRegistry,
      neverBundle: [/^node:/],
    },
  }),
);
