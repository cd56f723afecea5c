import { defineConfig, type UserConfig } from "tsdown";

// `dependencies` stay imports; the private @finetune-studio/internal (a devDependency, source only) is inlined.
const shared = {
  tsconfig: "tsconfig.build.json",
  target: "es2022",
  // `dist/*.js`: the package is `"type": "module"`, so `exports` and `bin` stay plain.
  fixedExtension: false,
  deps: {
    // Nothing from node_modules may be inlined: real dependencies stay dependencies.
    onlyBundle: [],
    // Node built-ins stay imports (tests/packaging refuses any in the library entry).
    neverBundle: [/^node:/],
  },
} satisfies UserConfig;

export default defineConfig([
  // The library: one ESM file and one bundled declaration file. Pure functions that run anywhere, so
  // built for no platform in particular.
  { ...shared, entry: { index: "src/index.ts" }, platform: "neutral", dts: true },
  // The `studio-serve` bin, one self-contained file (it repeats the builders it uses rather than share a
  // chunk with the library), until it moves to @finetune-studio/cli.
  { ...shared, entry: { "cli/main": "src/cli/main.ts" }, platform: "node", dts: false },
]);
