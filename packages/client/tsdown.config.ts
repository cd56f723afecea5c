import { defineConfig } from "tsdown";

// One ESM file and one bundled declaration file. `dependencies` (openapi-fetch, @finetune-studio/types)
// stay imports; the private @finetune-studio/internal (a devDependency, source only) is inlined.
export default defineConfig({
  entry: ["src/index.ts"],
  tsconfig: "tsconfig.build.json",
  // The client runs in browsers, Deno, Bun and edge runtimes: built for no platform in particular.
  platform: "neutral",
  target: "es2022",
  dts: true,
  // `dist/index.js` + `dist/index.d.ts`: the package is `"type": "module"`, so `exports` stays plain.
  fixedExtension: false,
  deps: {
    // Nothing from node_modules may be inlined: real dependencies stay dependencies.
    onlyBundle: [],
    // @finetune-studio/internal also holds Node-only helpers, which tree-shaking drops from this bundle.
    // One that survived would stay an import, and tests/packaging refuses a Node built-in here.
    neverBundle: [/^node:/],
  },
});
