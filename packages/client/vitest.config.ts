import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    // Prism mocks of both contracts, shared by the contract tests and stopped after the run.
    globalSetup: ["./src/test/global-setup.ts"],
    typecheck: { enabled: true, include: ["src/**/*.test-d.ts"], tsconfig: "./tsconfig.json" },
  },
});
