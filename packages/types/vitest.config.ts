import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    // The type tests (src/**/*.test-d.ts) are checked by the package's `typecheck` task (tsc over all of src/,
    // which `pnpm test` runs): vitest's typecheck would run tsc over them a second time.
  },
});
