import { defineConfig } from "vitest/config";

// A measurement of real HAProxy's delivery delay, against a limit of 150 ms.
const TIMED = ["src/front-door/haproxy-streaming.test.ts"];

export default defineConfig({
  test: {
    // The property tests run hundreds of generated cases (3-4 s here alone, more while the other packages'
    // tests load both cores in CI): vitest's 5 s default would fail them for the machine, not the code.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Removes each file's nginx prefixes when it is done (the workers keep modules: isolate below).
    setupFiles: ["./src/test/cleanup.setup.ts"],
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
          // A worker keeps the modules it imported for its next file (most files import the package's
          // entry): isolated, the imports cost 27 s of CPU over the 48 files; shared, 5 s. The files share no
          // state: each stops the servers it starts and stubs nothing global.
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        // One worker, in a group of its own after every other file, alone.
        test: { name: "serve-kit timed", include: TIMED, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
