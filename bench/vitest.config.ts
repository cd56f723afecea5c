import { defineConfig } from "vitest/config";

// Only the bench's own helpers are unit-tested here; the measurements themselves run with `pnpm bench`.
export default defineConfig({
  test: { include: ["src/**/*.test.ts"] },
});
