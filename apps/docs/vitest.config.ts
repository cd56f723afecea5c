import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Starting Chromium and rendering Redoc takes seconds on a busy 2-core machine; these are safety nets, not assertions.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
