import { describe, expect, it } from "vitest";
import { ExitCode } from "../shared/exit-codes.js";
import { untilInterrupted } from "../shared/interrupt.js";
import type { CliIo } from "../shared/io.js";
import { progressLine } from "./progress.js";

function capture(errIsTerminal: boolean | undefined) {
  const written: string[] = [];
  const io: CliIo = {
    out: () => undefined,
    err: (text) => written.push(text),
    env: {},
    ...(errIsTerminal === undefined ? {} : { errIsTerminal }),
  };
  return { io, written };
}

describe("bench's progress line, written only through the CLI's io", () => {
  it("redraws in place when the io says stderr is a terminal", () => {
    const { io, written } = capture(true);
    progressLine("concurrency 1", io).done();
    expect(written).toEqual(["\rbench: concurrency 1: 0 done, 0 failed, 0.0 req/s, TTFT p50 -\u001b[K\n"]);
  });

  it("writes plain lines otherwise (a log, a pipe, a test's io)", () => {
    const { io, written } = capture(undefined);
    progressLine("rate 4", io).done();
    expect(written).toEqual(["bench: rate 4: 0 done, 0 failed, 0.0 req/s, TTFT p50 -\n"]);
  });
});

describe("a note on the progress line (a stage starting)", () => {
  it("takes the live line's place on a terminal, which is drawn again under it naming where the run is", () => {
    const { io, written } = capture(true);
    const progress = progressLine("stages 1:2s,4:2s", io);
    progress.note("bench: stage 2 of 2 at 2 s: 4 req/s for 2 s", "stage 2 of 2");
    expect(written).toEqual([
      "\rbench: stage 2 of 2 at 2 s: 4 req/s for 2 s\u001b[K\nbench: stages 1:2s,4:2s (stage 2 of 2): 0 done, 0 failed, 0.0 req/s, TTFT p50 -\u001b[K",
    ]);
  });

  it("is a line of its own in a log, and the lines after it name the stage", () => {
    const { io, written } = capture(undefined);
    const progress = progressLine("stages 1:2s,4:2s", io);
    progress.note("bench: stage 1 of 2 at 0 s: 1 req/s for 2 s", "stage 1 of 2");
    progress.done();
    expect(written).toEqual([
      "bench: stage 1 of 2 at 0 s: 1 req/s for 2 s\n",
      "bench: stages 1:2s,4:2s (stage 1 of 2): 0 done, 0 failed, 0.0 req/s, TTFT p50 -\n",
    ]);
  });
});

describe("the one interrupt wiring of bench and status", () => {
  it("aborts the run's signal on SIGINT, once, and removes its handlers when the run ends", async () => {
    const before = process.listenerCount("SIGINT");
    let interrupts = 0;
    const aborted = await untilInterrupted(
      async (signal) => {
        expect(process.listenerCount("SIGINT")).toBe(before + 1);
        process.emit("SIGINT");
        return signal.aborted;
      },
      () => interrupts++,
    );
    expect([aborted, interrupts]).toEqual([true, 1]);
    expect(process.listenerCount("SIGINT")).toBe(before);
  });

  it("has its exit code in the table: 128 + SIGINT", () => {
    expect(ExitCode.Interrupted).toBe(130);
  });
});
