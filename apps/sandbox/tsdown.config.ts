import { defineConfig } from "tsdown";

// `pnpm start` runs dist/main.js with plain node: the private @finetune-studio/internal (source only) is
// inlined; the workspace packages and everything in node_modules stay imports.
export default defineConfig({
  tsconfig: "tsconfig.build.json",
  entry: { main: "src/main.ts" },
  platform: "node",
  target: "es2022",
  fixedExtension: false,
  deps: { onlyBundle: [] },
  dts: false,
});
