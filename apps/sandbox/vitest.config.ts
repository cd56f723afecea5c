import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    // The end-to-end test starts two Prism mocks and the docs server; that takes seconds on 2 cores.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
