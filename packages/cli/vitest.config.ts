import { defineConfig } from "vitest/config";

// The bench's measurements against a stand-in of known timing: their tolerances are tens of milliseconds.
const TIMED = ["src/bench/schedule.test.ts"];

export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: "cli",
          include: ["src/**/*.test.ts"],
          exclude: TIMED,
          // Most files start real processes and then wait on them (a stand-in loads, a reload drains, an
          // autoscaler waits out its window): four files at a time keep two cores busy where vitest's default
          // on two cores (one at a time) leaves them idle; with three, a CI run used two thirds of them.
          maxWorkers: 4,
        },
      },
      {
        extends: true,
        // One worker: vitest runs these after every other file, alone, so no other file's processes take
        // the cores from under their timings.
        test: { name: "cli timed", include: TIMED, maxWorkers: 1 },
      },
    ],
  },
});
