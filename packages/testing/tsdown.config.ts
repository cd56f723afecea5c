import { defineConfig } from "tsdown";

// The private @finetune-studio/internal (source only) is inlined, so plain `node` (the sandbox, the bench)
// can load this package's dist; real dependencies stay imports. Same settings as the other packages.
export default defineConfig({
  tsconfig: "tsconfig.json",
  entry: { index: "src/index.ts", cli: "src/chat-mock/cli.ts" },
  platform: "node",
  target: "es2022",
  fixedExtension: false,
  deps: { onlyBundle: [] },
  dts: true,
});
