import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    // Prism mocks of both contracts, shared by the contract tests and stopped after the run.
    globalSetup: ["./src/test/global-setup.ts"],
    // Real servers and processes, while the other packages' tests load both cores in CI: a test that takes
    // 2 s alone must not fail vitest's 5 s default for the machine's sake. These are limits, not timings.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // A worker keeps the modules it imported for its next file: isolated, the 21 files' imports cost about
    // twice the CPU. Each file restores what it stubs (timers, Math.random, console) after each test.
    isolate: false,
    // The type tests (src/**/*.test-d.ts) are checked by the package's `typecheck` task (tsc over all of src/,
    // which `pnpm test` runs): vitest's typecheck would run tsc over them a second time.
  },
});
