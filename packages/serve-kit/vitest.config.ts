import { defineConfig } from "vitest/config";

// A measurement of real HAProxy's delivery delay, against a limit of 150 ms.
const TIMED = ["src/front-door/haproxy-streaming.test.ts"];

export default defineConfig({
  test: {
    // The property tests run hundreds of generated cases (3-4 s here alone, more while the other packages'
    // tests load both cores in CI): vitest's 5 s default would fail them for the machine, not the code.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // The type tests (src/**/*.test-d.ts) are checked by the package's `typecheck` task (tsc over all of src/,
    // which `pnpm test` runs): vitest's typecheck would run tsc over them a second time.
    projects: [
      {
        extends: true,
        test: {
          name: "serve-kit",
          include: ["src/**/*.test.ts"],
          exclude: TIMED,
          // The files with real HAProxy, nginx, Prometheus and promtool wait on them: two files at a time
          // (vitest's default on two cores is one) let the property tests use the core they leave idle.
          maxWorkers: 2,
        },
      },
      {
        extends: true,
        // One worker: vitest runs these after every other file, alone.
        test: { name: "serve-kit timed", include: TIMED, maxWorkers: 1 },
      },
    ],
  },
});
