import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    // Real servers and processes, while the other packages' tests load both cores in CI: a test that takes
    // 2 s alone must not fail vitest's 5 s default for the machine's sake. These are limits, not timings.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
