import { defineConfig } from "tsdown";

// One ESM file and one bundled declaration file for the package's one entry. The bundled OpenAPI
// documents ship as they are (`openapi/`), outside the bundle.
export default defineConfig({
  entry: ["src/index.ts"],
  tsconfig: "tsconfig.build.json",
  platform: "neutral",
  target: "es2022",
  dts: true,
  // `dist/index.js` + `dist/index.d.ts`: the package is `"type": "module"`, so `exports` stays plain.
  fixedExtension: false,
  // Nothing from node_modules may be inlined: real dependencies stay dependencies.
  deps: { onlyBundle: [] },
});
