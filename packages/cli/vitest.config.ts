import { basename } from "node:path";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The end-to-end files that run longest, longest first (each over 40 s in a fresh-clone CI run). Without
 * durations of its own (a fresh clone, as CI runs) vitest orders files by size, which started the 86-second
 * launch-autoscale-sleep (a short file: it waits out the autoscaler) among the last and left the cores idle
 * for a minute at the end. A file missing here only starts later; a name that no longer matches is ignored.
 */
const LONGEST = [
  "launch-instances-reload",
  "launch-autoscale-sleep",
  "launch-autoscale",
  "launch-supervision",
  "launch",
  "launch-killed-survival",
  "launch-instances-timing",
  "launch-instances-routing",
  "launch-hostile-vllm",
];

/**
 * The files that start real processes (*.e2e.test.ts) first, the longest of them first, the others in
 * vitest's own order: they mostly wait (a stand-in loads, an autoscaler waits out its window), so the quick
 * unit files fill the workers at the end.
 */
class ProcessesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      if (!file.moduleId.endsWith(".e2e.test.ts")) return LONGEST.length + 1;
      const longest = LONGEST.indexOf(basename(file.moduleId, ".e2e.test.ts"));
      return longest === -1 ? LONGEST.length : longest;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

// The bench's measurements against a stand-in of known timing: their tolerances are tens of milliseconds.
const TIMED = ["src/bench/schedule.test.ts"];

export default defineConfig({
  test: {
    sequence: { sequencer: ProcessesFirst },
    // Removes each file's temporary directories when it is done (the workers keep modules: isolate below).
    setupFiles: ["./src/test/cleanup.setup.ts"],
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
          // Most files wait on real processes: vitest's 5 s default fails a stand-in that a busy 2-core
          // machine takes a few seconds to start (a CI run lost three tests so). Slower files set their own.
          testTimeout: 30_000,
          // A worker keeps the modules it imported for its next file: every end-to-end file imports the
          // whole CLI (to run commands in-process), which cost 46 s of CPU over the 60 files isolated and
          // 8 s shared, on a suite whose two cores are busy throughout. The files share no state: each
          // stops what it starts (stoppedAfterEach) and restores what it stubs.
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        // One worker, in a group of its own after every other file, alone, so no other file's processes
        // take the cores from under their timings.
        test: { name: "cli timed", include: TIMED, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
