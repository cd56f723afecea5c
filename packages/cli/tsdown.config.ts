import { defineConfig } from "tsdown";

// The `studio-serve` bin as one file. Real dependencies (serve-kit, the client) stay imports; the private
// @finetune-studio/internal (a devDependency, source only) is inlined. Same settings as the other packages.
export default defineConfig({
  tsconfig: "tsconfig.build.json",
  entry: { main: "src/main.ts" },
  platform: "node",
  target: "es2022",
  // `dist/main.js`: the package is `"type": "module"`, so `bin` stays plain.
  fixedExtension: false,
  // Nothing from node_modules may be inlined: real dependencies stay dependencies.
  deps: { onlyBundle: [] },
  dts: false,
});
