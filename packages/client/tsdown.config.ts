import { defineConfig, type UserConfig } from "tsdown";
// A relative import: tsdown's config loader bundles it, where a package import would reach Node as .ts.
import { publishedLibrary } from "../internal/src/build/published-library.ts";

// The runtime code the client needs (openapi-fetch and the contract's generated limits) is
// inlined into its one file: each package a cold `import` resolves costs Node about as much as parsing the
// whole client, and a serverless start or a CLI pays it on every run. The declarations still import the
// types of openapi-fetch and @finetune-studio/types, so those two stay dependencies.
const inlined = ["openapi-fetch", "@finetune-studio/types"];
const fromRegistry = ["openapi-fetch"];

// A cold import is mostly V8 reading the file's text: counted with callgrind (node --single-threaded, fixed
// seeds), evaluating the module is about a seventh of what the client adds over an empty module, scanning and
// parsing the rest. So the file is minified (its JSDoc lives in index.d.ts), names kept for stack traces,
// and written in ASCII: one character past Latin-1 (an ellipsis, openapi-fetch's apostrophe) makes the
// whole source a two-byte string, which V8 decodes and scans more slowly.
const minify: UserConfig["minify"] = {
  compress: true,
  mangle: { keepNames: { function: true, class: true } },
  codegen: { removeWhitespace: true },
};

/** Writes every non-ASCII character as `\uXXXX`: they sit in strings, templates and regexes, where it means the same. */
const asciiOnly = {
  name: "ascii-only",
  // After the minifier, which writes such escapes back as the characters.
  generateBundle(_: unknown, bundle: Record<string, { type: string; code?: string }>) {
    for (const file of Object.values(bundle)) {
      if (file.type === "chunk" && file.code !== undefined) {
        file.code = file.code.replace(
          /[^\0-\x7f]/g,
          (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
        );
      }
    }
  },
};

// The client runs in browsers, Deno, Bun and edge runtimes: the shared setup's neutral platform.
export default defineConfig({
  ...publishedLibrary({
    entry: ["src/index.ts"],
    deps: {
      // Importers named *.d.ts are the declaration pass: there the packages stay imports.
      alwaysBundle: (id, importer) => inlined.includes(id) && !importer?.endsWith(".d.ts"),
      onlyBundle: fromRegistry,
      neverBundle: [/^node:/],
    },
  }),
  minify,
  plugins: [asciiOnly],
});
