import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    globalSetup: ["src/pack.global-setup.ts"],
    // Packing and installing with npm takes a while on a 2-core machine; these are not timings.
    testTimeout: 120_000,
    hookTimeout: 300_000,
  },
});
