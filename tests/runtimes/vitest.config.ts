import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    // The packaging tests' own setup packs every published package and installs the tarballs with npm into
    // an empty project; then one shared set of mocks serves every runtime and the browser.
    globalSetup: ["../packaging/src/pack.global-setup.ts", "src/mocks.global-setup.ts"],
    // Each runtime starts cold on a loaded 2-core machine; these are limits, not timings.
    testTimeout: 240_000,
    hookTimeout: 300_000,
  },
});
