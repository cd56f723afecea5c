import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    // The property tests run hundreds of generated cases (3-4 s here alone, more while the other packages'
    // tests load both cores in CI): vitest's 5 s default would fail them for the machine, not the code.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // The type tests (src/**/*.test-d.ts) are checked by the package's `typecheck` task (tsc over all of src/,
    // which `pnpm test` runs): vitest's typecheck would run tsc over them a second time.
  },
});
