import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    // The Prism mock of the chat contract, shared by the contract tests and stopped after the run.
    globalSetup: ["./src/test/global-setup.ts"],
    testTimeout: 30_000,
  },
});
