import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    // The property tests run hundreds of generated cases (3-4 s here alone, more while the other packages'
    // tests load both cores in CI): vitest's 5 s default would fail them for the machine, not the code.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    typecheck: { enabled: true, include: ["src/**/*.test-d.ts"], tsconfig: "./tsconfig.json" },
  },
});
