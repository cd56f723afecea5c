import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Starting Chromium and rendering Redoc takes seconds on a busy 2-core machine; these are safety nets, not assertions.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // The site builds (site.test.ts, dev-server.test.ts) mostly wait on the examples they run (a bench sweep,
    // status against stand-ins): two files at a time (vitest's default on two cores is one) let Chromium and
    // tsc in the other files use the core a build leaves idle.
    maxWorkers: 2,
  },
});
