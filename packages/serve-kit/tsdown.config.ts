import { defineConfig, type UserConfig } from "tsdown";

// `dependencies` stay imports; the private @finetune-studio/internal (a devDependency, source only) is inlined.
const shared = {
  tsconfig: "tsconfig.build.json",
  target: "es2022",
  // `dist/*.js`: the package is `"type": "module"`, so `exports` and `bin` stay plain.
  fixedExtension: false,
  // Nothing from node_modules may be inlined: real dependencies stay dependencies.
  deps: { onlyBundle: [] },
} satisfies UserConfig;

export default defineConfig([
  // The library: one ESM file and one bundled declaration file. Pure functions, so `neutral`: a Node
  // built-in imported by mistake fails the build instead of reaching browser users.
  { ...shared, entry: { index: "src/index.ts" }, platform: "neutral", dts: true },
  // The `studio-serve` bin, one self-contained file (it repeats the builders it uses rather than share a
  // chunk with the library), until it moves to @finetune-studio/cli.
  { ...shared, entry: { "cli/main": "src/cli/main.ts" }, platform: "node", dts: false },
]);
